'use strict';
// Preloaded (NODE_OPTIONS=--require) into every Node.js process of an `npm install`: npm itself
// and each package's install scripts. Appends one JSON line per host a process looks up or
// connects to, with the package whose script is running (npm sets npm_package_name), to the
// file named by ENGRAM_NET_LOG. It changes nothing else: lookups and connections go ahead.
const fs = require('node:fs');
const dns = require('node:dns');
const net = require('node:net');
const process = require('node:process');

const logFile = process.env.ENGRAM_NET_LOG;
if (logFile) {
  const record = (kind, host) => {
    if (typeof host !== 'string' || host === '') return;
    const entry = {
      kind,
      host,
      package: process.env.npm_package_name ?? null,
      event: process.env.npm_lifecycle_event ?? null,
      script: process.argv[1] ?? null,
    };
    try {
      fs.appendFileSync(logFile, JSON.stringify(entry) + '\n');
    } catch {
      // Recording must never change what the process does.
    }
  };
  const lookup = dns.lookup;
  dns.lookup = function recordedLookup(host, ...rest) {
    record('lookup', host);
    return lookup.call(this, host, ...rest);
  };
  const lookupPromise = dns.promises.lookup;
  dns.promises.lookup = function recordedLookupPromise(host, ...rest) {
    record('lookup', host);
    return lookupPromise.call(this, host, ...rest);
  };
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function recordedConnect(...args) {
    const first = Array.isArray(args[0]) ? args[0][0] : args[0];
    const host =
      first !== null && typeof first === 'object' ? first.host : typeof args[1] === 'string' ? args[1] : undefined;
    if (typeof first === 'object' && first !== null && first.path === undefined) record('connect', host ?? 'localhost');
    else if (typeof first === 'number') record('connect', host ?? 'localhost');
    return connect.apply(this, args);
  };
}
