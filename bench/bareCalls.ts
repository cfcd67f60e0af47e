/**
 * The bare side of the GET /me figure: the DynamoDB requests GET /me itself sends, recorded from a
 * real request and sent again without the HTTP adapter, the handler or anything of ours around them.
 * Written out by hand they drift from what the code sends (they did: the bucket's condition had lost
 * its `attribute_not_exists(#tat) OR #tat <= :now` and ReturnValuesOnConditionCheckFailure).
 */
interface Command {
  input: Record<string, unknown>;
  constructor: new (input: never) => Command;
}
interface SendsCommands {
  send(command: never, ...rest: unknown[]): Promise<unknown>;
}

/** The commands `client.send` was given while `work` ran, in order, each with a copy of its input. */
export async function commandsSentBy(client: SendsCommands, work: () => Promise<unknown>): Promise<Command[]> {
  const sent: Command[] = [];
  const own = Object.getOwnPropertyDescriptor(client, 'send');
  const send = client.send.bind(client);
  client.send = (command: never, ...rest: unknown[]) => {
    sent.push(command);
    return send(command, ...rest);
  };
  try {
    await work();
  } finally {
    if (own) Object.defineProperty(client, 'send', own);
    else delete (client as Partial<SendsCommands>).send;
  }
  return sent.map((command) => new command.constructor(structuredClone(command.input) as never));
}

/**
 * A function that sends `commands` again, all at once as GET /me does, each time as a new request on
 * the same items. An update's attribute names point at bench attributes (`benchAttribute`, then
 * `benchAttribute1`, …), so the replays move nothing the service reads, such as the bucket GET /me
 * charges; the numbers among its values move forward by one at each call, so a condition that held
 * when recorded (`#tat <= :now`, on a time that only grows) holds again. Reads are sent as they were.
 */
export function replayer(client: SendsCommands, commands: Command[], benchAttribute: string): () => Promise<unknown[]> {
  let step = 0;
  return () => {
    step += 1;
    return Promise.all(commands.map((command) => client.send(new command.constructor(replayed(command.input, benchAttribute, step) as never) as never)));
  };
}

export function replayed(input: Record<string, unknown>, benchAttribute: string, step: number): Record<string, unknown> {
  if (typeof input.UpdateExpression !== 'string') return input;
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (input.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
  return {
    ...input,
    ExpressionAttributeNames: Object.fromEntries(Object.keys(names).map((name, index) => [name, index === 0 ? benchAttribute : `${benchAttribute}${index}`])),
    ExpressionAttributeValues: Object.fromEntries(Object.entries(values).map(([name, value]) => [name, typeof value === 'number' ? value + step : value])),
  };
}
