import { describe, expect, it } from 'vitest';

import { detectSensitive } from '../../src/safety/detect/detect-sensitive.js';
import { body } from './support/tokens.js';

function secrets(text: string): Array<{ kind: string; value: string }> {
  return detectSensitive(text)
    .filter((f) => f.category === 'secret')
    .map((f) => ({ kind: f.kind, value: text.slice(f.start, f.end) }));
}

describe('provider keys', () => {
  const cases: Array<[string, string]> = [
    ['openai', `sk-proj-${body(80, 1, 'ABCDEFabcdef0123456789_-')}`],
    ['openai', `sk-svcacct-${body(60, 2)}`],
    ['openai', `sk-${body(20, 3)}T3BlbkFJ${body(20, 4)}`],
    ['anthropic', `sk-ant-api03-${body(93, 5)}AA`],
    ['aws-access-key', `AKIA${body(16, 6, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}`],
    ['aws-access-key', `ASIA${body(16, 7, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}`],
    ['github', `ghp_${body(36, 8)}`],
    ['github', `ghs_${body(36, 9)}`],
    ['github', `github_pat_11${body(20, 10)}_${body(59, 11)}`],
    ['gitlab', `glpat-${body(20, 12)}`],
    ['stripe', `sk_live_${body(24, 13)}`],
    ['stripe', `rk_test_${body(99, 14)}`],
    ['stripe', `whsec_${body(32, 15)}`],
    ['slack', `xoxb-123456789012-1234567890123-${body(24, 16)}`],
    ['slack', `https://hooks.slack.com/services/T0ABCDEF1/B0ABCDEF12/${body(24, 17)}`],
    ['google-api-key', `AIza${body(35, 18)}`],
    ['npm', `npm_${body(36, 19)}`],
    ['huggingface', `hf_${body(34, 20, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJ')}`],
    ['sendgrid', `SG.${body(22, 21)}.${body(43, 22)}`],
  ];
  it.each(cases)('finds a %s key in a sentence and masks exactly it', (kind, key) => {
    expect(secrets(`my key is ${key} ok`)).toEqual([{ kind, value: key }]);
  });

  it('does not take a key that runs on into more key characters', () => {
    expect(secrets(`ghp_${body(36, 8)}`)).toHaveLength(1);
    expect(secrets(`xghp_${body(36, 8)}`)).toEqual([]);
  });
});

describe('placeholders and prose', () => {
  it.each([
    'set OPENAI_API_KEY=sk-... first',
    'export OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
    'AKIAIOSFODNN7EXAMPLE is the documented sample',
    'ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    'token = <TOKEN>',
    'api_key: ${API_KEY}',
    'password=********',
    'Password: required field',
    'I forgot my password again',
    'My password is too weak, I need a new one',
    'postgres://user:password@localhost:5432/db',
    'redis://localhost:6379',
    'the token bucket holds 100 tokens',
  ])('passes %j', (text) => {
    expect(secrets(text)).toEqual([]);
  });
});

describe('credentials by name, keeping the name', () => {
  it.each([
    ['password: hunter2', 'hunter2'],
    ['DB_PASSWORD=s3cr3tP@ss', 's3cr3tP@ss'],
    ['"password": "x7$Kq!92z"', '"x7$Kq!92z"'],
    ['Server=sql01;User Id=sa;Password=Summer2024!;', 'Summer2024!'],
    ['my wifi password is "sunflower-77".', '"sunflower-77"'],
    ['the password for the staging box is Gr8Sc0tt.', 'Gr8Sc0tt'],
    ['mysql -u root -pR00tPa55 shop', 'R00tPa55'],
    ['api_key = "9b1e4c7a2f8d4e6b9c0a1d2e3f4a5b6c"', '"9b1e4c7a2f8d4e6b9c0a1d2e3f4a5b6c"'],
  ])('%j → masks %j', (text, value) => {
    expect(secrets(text).map((s) => s.value)).toEqual([value]);
  });

  it('masks only the password of a connection string: scheme, user and host stay', () => {
    const text = 'use postgres://app:Wint3r-is-coming@db.internal:5432/prod';
    const [f] = detectSensitive(text);
    expect(f?.kind).toBe('connection-string');
    expect(text.slice(0, f?.start) + f?.mask + text.slice(f?.end)).toBe(
      'use postgres://app:[secret:password]@db.internal:5432/prod',
    );
  });

  it('takes a whole private-key block, and one pasted without its END line to the end', () => {
    const block = `-----BEGIN RSA PRIVATE KEY-----\n${body(64, 30)}\n${body(64, 31)}\n-----END RSA PRIVATE KEY-----`;
    expect(secrets(`key:\n${block}\nthanks`)).toEqual([{ kind: 'private-key', value: block }]);
    const cut = `-----BEGIN OPENSSH PRIVATE KEY-----\n${body(70, 32)}`;
    expect(secrets(cut)).toEqual([{ kind: 'private-key', value: cut }]);
    expect(secrets('-----BEGIN CERTIFICATE----- is public')).toEqual([]);
  });

  it('prefers the JWT over the Bearer header it sits in', () => {
    const jwt = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${body(43, 33)}`;
    expect(secrets(`Authorization: Bearer ${jwt}`)).toEqual([{ kind: 'jwt', value: jwt }]);
    expect(secrets('the JWT starts with eyJ because the header is JSON')).toEqual([]);
  });

  it('finds an AWS secret key only in its context', () => {
    const key = body(40, 34, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+');
    expect(secrets(`aws_secret_access_key = ${key}`)).toEqual([{ kind: 'aws-secret-key', value: key }]);
    expect(secrets(`checksum ${key}`)).toEqual([]);
  });
});
