'use strict';
// A CommonJS consumer: require() must explain itself, import() must work.
let required;
try {
  require('engram-memory/store');
  required = { ok: true };
} catch (error) {
  required = { ok: false, code: error.code, message: error.message };
}
(async () => {
  const { Engram } = await import('engram-memory');
  const { createSqliteStore } = await import('engram-memory/store');
  console.log(JSON.stringify({ required, imported: typeof Engram.open, store: typeof createSqliteStore }));
})();
