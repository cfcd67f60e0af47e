import { randomBytes } from 'node:crypto';
import { ulid } from 'ulid';
import { config } from '#platform/config.ts';
import { ApiError, validationError } from '#platform/errors.ts';
import { AddressRefused, HostUnresolved, checkedAddress } from '#providers/webhookSender.ts';
import { seal } from '#store/secretBox.ts';
import { endpointView, getEndpoint, saveEndpoint, type EndpointRecord } from '#store/webhooks.ts';
import { eventTypes, type PutWebhookEndpointBody, type RegisteredWebhookEndpoint } from '#schemas/webhooks.ts';

/**
 * Registering the one webhook endpoint (docs/decisions/091, 092). The first registration issues a
 * signing secret, shown once; replacing the URL keeps it; `rotateSecret` issues a new one and keeps
 * the old one signing beside it for 24 hours. A PUT also enables an endpoint that disabled itself.
 */
export const secretOverlapSeconds = 24 * 3600;

/** Standard Webhooks' form: `whsec_` + base64 of the key (32 random bytes). */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The secret's last four characters, base64's `=` padding left out (every secret ends in it). */
function secretHintOf(secret: string): string {
  return secret.replace(/=+$/, '').slice(-4);
}

/** The URL a receiver may register here: `https` outside `simulated`, and a host resolving to allowed addresses only. */
async function checkUrl(url: string): Promise<void> {
  const environment = config().SERVICE_ENVIRONMENT;
  const parsed = new URL(url);
  if (environment !== 'simulated' && parsed.protocol !== 'https:') {
    throw validationError([{ path: ['url'], message: `must be https on ${environment}` }], 'The webhook URL must use https.');
  }
  try {
    await checkedAddress(parsed, environment);
  } catch (error) {
    if (error instanceof AddressRefused || error instanceof HostUnresolved) {
      throw validationError([{ path: ['url'], message: error.message }], 'The webhook URL cannot receive events.');
    }
    throw error;
  }
}

export async function registerEndpoint(organizationId: string, body: PutWebhookEndpointBody, now = new Date()): Promise<RegisteredWebhookEndpoint> {
  await checkUrl(body.url);
  const existing = await getEndpoint(organizationId);
  const at = now.toISOString();
  const wanted = new Set(body.events ?? eventTypes);
  let issued: string | undefined;
  let record: EndpointRecord;
  if (!existing) {
    issued = newSecret();
    record = {
      organizationId,
      registrationId: ulid(now.getTime()),
      url: body.url,
      events: eventTypes.filter((type) => wanted.has(type)),
      status: 'enabled',
      disabledReason: null,
      secret: await seal(issued, organizationId),
      secretHint: secretHintOf(issued),
      previousSecret: null,
      previousSecretExpiresAt: null,
      createdAt: at,
      updatedAt: at,
    };
  } else {
    const { failingSince: _cleared, ...kept } = existing;
    record = { ...kept, url: body.url, events: eventTypes.filter((type) => wanted.has(type)), status: 'enabled', disabledReason: null, updatedAt: at };
    if (body.rotateSecret) {
      issued = newSecret();
      record.previousSecret = existing.secret;
      record.previousSecretExpiresAt = new Date(now.getTime() + secretOverlapSeconds * 1000).toISOString();
      record.secret = await seal(issued, organizationId);
      record.secretHint = secretHintOf(issued);
    }
  }
  if (!(await saveEndpoint(record, existing?.updatedAt))) {
    throw new ApiError('conflict', 'The webhook endpoint changed while this request was being handled; send it again.');
  }
  const { secretHint: _hint, ...view } = endpointView(record, now);
  return { ...view, ...(issued ? { secret: issued } : {}) };
}
