export { RemoteEngram, type RemoteEngramOptions, type FetchLike } from './remote-engram.js';
