import { createServer, type Server } from 'node:http';

/**
 * The plumbing of a stand-in for an AWS service that speaks the JSON protocol (Secrets Manager, KMS,
 * Step Functions), for what cannot run here: an HTTP server on 127.0.0.1 the real SDK client reaches
 * through its AWS_ENDPOINT_URL_<SERVICE> variable. `answer` gets the operation (the X-Amz-Target after the dot)
 * and the request's JSON, and says what to send back; an error is sent as AWS sends one (its type in
 * `__type` and x-amzn-errortype), so the SDK raises its own exception class for it.
 */
export interface AwsJsonAnswer {
  status?: number;
  body: Record<string, unknown>;
  /** An AWS error type (`ResourceNotFoundException`): the answer is that error. */
  error?: string;
}

export async function startFakeAwsJsonService(answer: (operation: string, input: Record<string, unknown>) => AwsJsonAnswer | Promise<AwsJsonAnswer>): Promise<{ url: string; stop(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const operation = String(request.headers['x-amz-target'] ?? '').split('.').at(-1) ?? '';
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      void Promise.resolve(answer(operation, input)).then(({ status, body, error }) => {
        // In the JSON protocol version the client spoke (1.1 for Secrets Manager and KMS, 1.0 for Step Functions).
        const contentType = String(request.headers['content-type'] ?? 'application/x-amz-json-1.1');
        response.writeHead(status ?? (error ? 400 : 200), { 'content-type': contentType, ...(error ? { 'x-amzn-errortype': error } : {}) });
        response.end(JSON.stringify(error ? { __type: error, ...body } : body));
      }, (failure: unknown) => {
        // A stand-in that throws is a bug of the test: answered as AWS answers its own failures, so the call fails loudly.
        response.writeHead(500, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-errortype': 'InternalFailure' });
        response.end(JSON.stringify({ __type: 'InternalFailure', message: String(failure) }));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
