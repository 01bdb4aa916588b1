'use strict';
// The `require` condition of every engram-memory entry point: the package is ESM-only, so a
// CommonJS require() gets this explanation instead of ERR_PACKAGE_PATH_NOT_EXPORTED.
const error = new Error(
  'engram-memory is an ES module package and cannot be loaded with require(). ' +
    'From ESM or TypeScript with "module": "NodeNext", use `import { Engram } from "engram-memory"`. ' +
    'From CommonJS, use a dynamic import inside an async function: ' +
    '`const { Engram } = await import("engram-memory")` (or `import("engram-memory/store")`, etc.).',
);
error.code = 'ERR_REQUIRE_ESM';
throw error;
