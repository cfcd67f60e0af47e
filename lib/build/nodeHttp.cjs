// node:http for the Lambda bundles, as Node's own module object instead of its ES module facade
// (docs/decisions/156): building the facade reads every export, and http's WebSocket, CloseEvent and
// MessageEvent getters load Node's bundled undici, about 20 ms of every cold start, for a client
// that only calls http.request (the SDK's instance-metadata credential provider, our webhook sender).
module.exports = process.getBuiltinModule('node:http');
