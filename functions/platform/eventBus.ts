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
  Resources?: string[];
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
export const putEventsMaxEntries = 10;

/**
 * The most one PutEvents call carries, summed over its entries as EventBridge counts them
 * (putEventsEntryBytes); past it EventBridge refuses the whole call with ValidationException
 * "Total size of the entries in the request is over the limit." AWS raised it to 1 MiB in January
 * 2026 where it could; the stack deploys to any region, so both wirings hold the 256 KiB every
 * region still honours (docs/decisions/102).
 */
export const putEventsMaxBytes = 256 * 1024;

/**
 * An entry's size as EventBridge computes it ("Calculating PutEvents event entry size"): Time is 14
 * bytes when set; Source, DetailType, Detail and each Resources entry count their UTF-8 bytes.
 */
export function putEventsEntryBytes(entry: BusEntry): number {
  return (
    (entry.Time ? 14 : 0) +
    Buffer.byteLength(entry.Source) +
    Buffer.byteLength(entry.DetailType) +
    Buffer.byteLength(entry.Detail) +
    (entry.Resources ?? []).reduce((sum, resource) => sum + Buffer.byteLength(resource), 0)
  );
}

/**
 * The entries as PutEvents calls, in order: at most 10 entries and putEventsMaxBytes each, so that
 * one large event never takes its neighbours down with it. An entry over the limit on its own goes in
 * a call of its own, which EventBridge refuses (and the local bus too): only that entry fails.
 */
export function putEventsCalls(entries: BusEntry[]): { start: number; entries: BusEntry[]; bytes: number }[] {
  const calls: { start: number; entries: BusEntry[]; bytes: number }[] = [];
  entries.forEach((entry, index) => {
    const bytes = putEventsEntryBytes(entry);
    const last = calls.at(-1);
    if (last && last.entries.length < putEventsMaxEntries && last.bytes + bytes <= putEventsMaxBytes) {
      last.entries.push(entry);
      last.bytes += bytes;
    } else {
      calls.push({ start: index, entries: [entry], bytes });
    }
  });
  return calls;
}

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
    for (const { start, entries: chunk } of putEventsCalls(entries)) {
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
