import { createClient, type PaymentsClient } from '@payments/client';

/**
 * What every example starts with: a client for BASE_URL with API_KEY (`npm start` prints both), and
 * one clear line and a non-zero exit when something goes wrong.
 */
export function run(example: (client: PaymentsClient) => Promise<void>): void {
  const { BASE_URL: baseUrl, API_KEY: apiKey } = process.env;
  if (!baseUrl || !apiKey) {
    console.error('Set BASE_URL and API_KEY (npm start prints both), e.g. BASE_URL=http://127.0.0.1:3000 API_KEY=sk_sim_… npx tsx examples/send-payment.ts');
    process.exit(2);
  }
  example(createClient({ baseUrl, apiKey })).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(`failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}

/** Reads `read` every `intervalMs` until `done` holds; throws naming `what` past the deadline. */
export async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 60_000, intervalMs = 500): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`gave up after ${timeoutMs / 1000} s waiting for ${what}; last seen: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
