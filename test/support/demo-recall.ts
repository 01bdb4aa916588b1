/**
 * Asks a `serve --demo` server over REST, with the key it printed, when the demo user's car
 * insurance is due: the text of the top hit (undefined when there is none).
 */
export async function demoTopHit(url: string, key: string | undefined): Promise<string | undefined> {
  const response = await fetch(`${url}/v1/recall`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ scope: { user: 'demo-user' }, query: 'When is my car insurance due?', limit: 1 }),
  });
  const body = (await response.json()) as { hits: { memory: { text: string } }[] };
  return body.hits[0]?.memory.text;
}
