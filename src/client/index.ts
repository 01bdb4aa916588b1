export { RemoteEngram, type RemoteEngramOptions, type FetchLike } from './remote-engram.js';
export type { RemoteSearchOptions, WireSearchOptions } from '../model/request-fields.js';
