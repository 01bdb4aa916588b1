export { RemoteEngram, type RemoteEngramOptions, type RemoteSearchOptions, type FetchLike } from './remote-engram.js';
