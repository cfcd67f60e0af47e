import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { config } from './config.ts';

/**
 * The event-bus port: the outbox forwarder publishes through it and never knows whose bus it
 * is. In AWS the adapter below puts events on EventBridge (bus named by EVENT_BUS_NAME); the
 * local launcher installs lib/local/eventBus.ts, which matches the same rules and calls the
 * same targets in process.
 */
export interface BusEntry {
  Source: string;
  DetailType: string;
  /** JSON text, as EventBridge takes it. */
  Detail: string;
  Time?: Date;
}

export interface PublishResult {
  /** Indexes into the published entries that the bus did not accept; the caller retries them. */
  failed: { index: number; error: string }[];
}

export interface EventBus {
  publish(entries: BusEntry[]): Promise<PublishResult>;
}

let installed: EventBus | undefined;

/** The local launcher and tests install their bus before any handler runs. */
export function useEventBus(next: EventBus | undefined): void {
  installed = next;
}

export function eventBus(): EventBus {
  installed ??= new EventBridgeBus();
  return installed;
}

/** PutEvents takes at most 10 entries per call. */
const putEventsLimit = 10;

/** Built once per Lambda container, on first publish. */
let client: EventBridgeClient | undefined;

export class EventBridgeBus implements EventBus {
  private readonly busName: string;

  constructor(busName?: string, private readonly eventBridge?: EventBridgeClient) {
    const configured = busName ?? config().EVENT_BUS_NAME;
    if (!configured) throw new Error('EVENT_BUS_NAME is not set: the EventBridge bus adapter has nowhere to publish');
    this.busName = configured;
  }

  async publish(entries: BusEntry[]): Promise<PublishResult> {
    const eventBridge = this.eventBridge ?? (client ??= new EventBridgeClient({}));
    const failed: PublishResult['failed'] = [];
    for (let start = 0; start < entries.length; start += putEventsLimit) {
      const chunk = entries.slice(start, start + putEventsLimit);
      try {
        const response = await eventBridge.send(
          new PutEventsCommand({ Entries: chunk.map((entry) => ({ ...entry, EventBusName: this.busName })) }),
        );
        // PutEvents answers 200 even when some entries were refused: each result says so.
        response.Entries?.forEach((result, offset) => {
          if (result.ErrorCode) failed.push({ index: start + offset, error: `${result.ErrorCode}: ${result.ErrorMessage ?? ''}` });
        });
      } catch (error) {
        chunk.forEach((_, offset) => failed.push({ index: start + offset, error: String(error) }));
      }
    }
    return { failed };
  }
}
