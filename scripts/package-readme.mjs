// The package page shows PACKAGE-README.md (install, quick start, links); the repository keeps
// README.md (the two repo commands first). `npm pack` / `npm publish` run `swap` in prepack and
// `restore` in postpack, so only the tarball ever holds the package README under README.md.
import { copyFileSync, existsSync, renameSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = (name) => fileURLToPath(new URL(`../${name}`, import.meta.url));
const readme = root('README.md');
const packageReadme = root('PACKAGE-README.md');
const backup = root('.README.repo.md');

function restore() {
  if (existsSync(backup)) renameSync(backup, readme);
}

const command = process.argv[2];
if (command === 'swap') {
  restore(); // an interrupted pack left the repository README aside: put it back first
  renameSync(readme, backup);
  copyFileSync(packageReadme, readme);
} else if (command === 'restore') {
  restore();
} else {
  console.error('usage: node scripts/package-readme.mjs swap|restore');
  process.exit(2);
}
