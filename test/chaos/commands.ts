import fc from 'fast-check';
import { ulid } from 'ulid';
import { findCorridor, sampleBeneficiary } from '#domain/corridors.ts';
import { depositReferenceOf } from '#domain/depositReference.ts';
import { roleHasPermission, type Role } from '#domain/permissions.ts';
import { crossingFees } from '#domain/pricing.ts';
import { sampleOffRampBeneficiaries } from '#operations/offRamp/beneficiaries.ts';
import { config } from '#platform/config.ts';
import { replaceOrganizationKeys } from '#store/organizations.ts';
import { onRampDepositId } from '#operations/onRamp/progress.ts';
import { ingestStatementLine } from '#operations/onRamp/wireDeposits.ts';
import { simulateChainDeposit } from '../../lib/ops/chainDeposit.ts';
import { invitationTokenOf, latestMessageTo } from '../../lib/ops/outbox.ts';
import { parseDepositResolution, runDepositResolution } from '../../lib/ops/resolveDeposits.ts';
import { resolveFromCli } from '../../lib/ops/resolvePayments.ts';
import { until } from '../support/eventually.ts';
import { verify, type ReceivedDelivery } from '../support/webhookReceiver.ts';
import { countChecks, endOf, fail, ledgerHolds, recipientOf, settleTimeoutMs, subjectOf, verifiedPayload } from './checks.ts';
import {
  decimal, depositCents, depositEnds, offRampCents, offRampEnds, parkedStates, paymentCents, paymentEnds, pixCents, withdrawalCents, withdrawalEnds, type Model, type Operation,
} from './model.ts';
import type { Answer, ChaosOrganization, World } from './world.ts';

/**
 * The workload's commands (fast-check model-based testing): each sends real requests over HTTP,
 * checks the answers it must get at once, records in the model what the operation must end as,
 * then checks the organization's ledger while the workflows it started go on in the background.
 */
export interface Real {
  world: World;
  organizations: ChaosOrganization[];
  /** Unique per property run, so keys never meet those of an earlier run on the same table. */
  run: string;
  /** Money-moving and reading requests sent, by kind (the run's table). */
  operations: Map<string, number>;
  sequence: number;
}

type Command = fc.AsyncCommand<Model, Real, false>;

const mexico = findCorridor('USDC', 'MXN', 'MX')!;
export const beneficiary = sampleBeneficiary(mexico);
const batchProvider = mexico.routes[0]!.provider;
/** A fixed own address: withdrawals go somewhere valid. */
export const toAddress = '0x52908400098527886e0f7030069857d2e4169ee7';

function counted(real: Real, kind: string, count = 1): void {
  real.operations.set(kind, (real.operations.get(kind) ?? 0) + count);
}

function nextKey(real: Real, kind: string): string {
  real.sequence += 1;
  return `${kind}-${real.run}-${real.sequence}`;
}

/**
 * The same request `copies` times at once: every answer must be the same success naming the same
 * id, or the same refusal; a copy that lost the race to its twin may be told so (409), never paid
 * twice. Answers the first success, or the common refusal.
 */
async function sentTogether(real: Real, kind: string, copies: number, send: () => Promise<Answer>, idOf: (body: any) => string | undefined): Promise<Answer> {
  const answers = await Promise.all(Array.from({ length: copies }, send));
  counted(real, kind, copies);
  for (const answer of answers) if (answer.status >= 500) fail(`${kind} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  const successes = answers.filter((answer) => answer.status < 300);
  const ids = new Set(successes.map((answer) => idOf(answer.body)));
  if (ids.size > 1) fail(`${copies} copies of one ${kind} named ${ids.size} different operations: ${[...ids].join(', ')}`);
  if (successes.length > 0) {
    const earlier = answers.filter((answer) => refusedBefore(answer, successes));
    if (earlier.length > 0) countChecks('a copy refused for funds before its twin was sent again', earlier.length);
    const others = answers.filter((answer) => answer.status >= 300 && answer.status !== 409 && !earlier.includes(answer));
    if (others.length > 0) fail(`a copy of a ${kind} that succeeded answered ${others[0]!.status}: ${JSON.stringify(others[0]!.body)} (copies: ${timeline(answers)})`);
    countChecks('concurrent copies name one operation', copies);
    return successes[0]!;
  }
  const refusals = new Set(answers.filter((answer) => answer.status !== 409).map((answer) => `${answer.status} ${answer.body?.error}`));
  if (refusals.size > 1) fail(`copies of one ${kind} were refused differently: ${[...refusals].join('; ')}`);
  return answers.find((answer) => answer.status !== 409) ?? answers[0]!;
}

/**
 * One request, sent again with the same body while it answers 503 (the contract's "may or may not
 * have taken effect"), for up to `resendForMs` past the integrator's own patience.
 */
async function resentWhileUnavailable(real: Real, kind: string, send: () => Promise<Answer>, resendForMs: number): Promise<Answer> {
  counted(real, kind, 1);
  const giveUpAt = Date.now() + resendForMs;
  let answer = await send();
  while (answer.status === 503 && Date.now() < giveUpAt) answer = await send();
  if (answer.status >= 500) fail(`${kind} answered ${answer.status} after ${Math.round(resendForMs / 1000)} s more of resends: ${JSON.stringify(answer.body)}`);
  return answer;
}

/** Each copy's answer, attempts and the final attempt's window, in ms from the first send: what a failure needs to be read. */
function timeline(answers: Answer[]): string {
  const start = Math.min(...answers.map((answer) => answer.sentAt));
  return answers.map((answer) => `${answer.status} after ${answer.attempts} attempt(s), sent +${answer.sentAt - start} answered +${answer.answeredAt - start} ms`).join('; ');
}

/**
 * A copy refused for funds before the copy that succeeded was sent again: the two were decided at
 * different moments, against different balances (a release may land between them), and the refusal
 * moved nothing, so the contract's promise (a retry never makes a second operation) holds. Copies
 * decided together must agree: one refused because its twin took the money is a violation.
 */
function refusedBefore(refusal: Answer, successes: Answer[]): boolean {
  return refusal.status === 422 && refusal.body?.error === 'insufficient_funds' && successes.every((success) => success.attempts > 1 && success.sentAt >= refusal.answeredAt);
}

type PaymentBody = { idempotencyKey: string } & Record<string, unknown>;

/**
 * A payment's answer in the model: taken (202, named by its key) is an operation that must end as
 * its band says; refused for funds is counted; anything else breaks the contract.
 */
function recordPayment(model: Model, organization: number, body: PaymentBody, cents: number, answer: Answer): void {
  if (answer.status === 202) {
    if (answer.body.transactionId !== body.idempotencyKey) fail(`payment ${body.idempotencyKey} was given the id ${answer.body.transactionId}`);
    const amount = (body.sendAmount as { amount: string }).amount;
    model.operations.push({ kind: 'payment', id: body.idempotencyKey, organization, ends: paymentEnds(cents), statusPath: `/transactions/${body.idempotencyKey}`, replay: { method: 'POST', path: '/transactions', body }, amount });
  } else if (answer.status === 422 && answer.body?.error === 'insufficient_funds') {
    model.refused.set('payment', (model.refused.get('payment') ?? 0) + 1);
  } else {
    fail(`payment ${body.idempotencyKey} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  }
}

class Pay implements Command {
  constructor(readonly organization: number, readonly whole: number, readonly cents: number, readonly copies: number) {}
  check = (model: Readonly<Model>) => this.organization < model.organizations;
  async run(model: Model, real: Real): Promise<void> {
    const organization = real.organizations[this.organization]!;
    const idempotencyKey = nextKey(real, 'pay');
    const body = { idempotencyKey, corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: decimal(this.whole, this.cents), currency: 'USDC' }, recipientReference: 'chaos', beneficiary };
    const answer = await sentTogether(real, 'payment', this.copies, () => real.world.request('POST', '/transactions', organization.apiKey, body), (body) => body?.transactionId);
    recordPayment(model, this.organization, body, this.cents, answer);
    await ledgerHolds(organization.organizationId);
  }
  toString = () => `Pay(org ${this.organization}, ${decimal(this.whole, this.cents)} USDC, ${this.copies}×)`;
}

class Withdraw implements Command {
  constructor(readonly organization: number, readonly whole: number, readonly cents: number, readonly copies: number) {}
  check = (model: Readonly<Model>) => this.organization < model.organizations;
  async run(model: Model, real: Real): Promise<void> {
    const organization = real.organizations[this.organization]!;
    const idempotencyKey = nextKey(real, 'wd');
    const body = { idempotencyKey, amount: { amount: decimal(this.whole, this.cents), currency: 'USDC' }, chain: 'base', toAddress };
    const answer = await sentTogether(real, 'withdrawal', this.copies, () => real.world.request('POST', '/treasury/withdrawals', organization.apiKey, body), (body) => body?.withdrawalId);
    // The contract refuses no withdrawal at intake for funds (it may end FAILED): only 202 is right.
    if (answer.status !== 202) fail(`withdrawal ${idempotencyKey} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    model.operations.push({ kind: 'withdrawal', id: answer.body.withdrawalId, organization: this.organization, ends: withdrawalEnds(this.cents), statusPath: `/treasury/withdrawals/${answer.body.withdrawalId}`, replay: { method: 'POST', path: '/treasury/withdrawals', body }, amount: body.amount.amount });
    await ledgerHolds(organization.organizationId);
  }
  toString = () => `Withdraw(org ${this.organization}, ${decimal(this.whole, this.cents)} USDC, ${this.copies}×)`;
}

class WireDeposit implements Command {
  constructor(readonly organization: number, readonly whole: number, readonly cents: number) {}
  check = (model: Readonly<Model>) => this.organization < model.organizations;
  async run(model: Model, real: Real): Promise<void> {
    const organization = real.organizations[this.organization]!;
    const amount = decimal(this.whole, this.cents);
    // No key makes a wire safe to post twice: one whose answer is lost is looked for, not sent again.
    const answer = await real.world.request('POST', '/treasury/onramps/simulate-wire', organization.apiKey, { amount: { amount, currency: 'USD' } }, { once: true });
    counted(real, 'wire deposit');
    if (answer.status === 0 || answer.status === 503) {
      await adoptWirePosted(model, real, this.organization, this.cents);
      await ledgerHolds(organization.organizationId);
      return;
    }
    if (answer.status !== 202) fail(`a simulated wire answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    const onRampId = answer.body.onRampId as string | undefined;
    // A wire quoting the reference starts (`pending`) or joins (`attributed`) a deposit; `parked` is for a mangled reference.
    if (onRampId && answer.body.disposition !== 'parked') {
      model.operations.push({ kind: 'deposit', id: onRampId, organization: this.organization, ends: depositEnds(this.cents), statusPath: `/treasury/onramp/${onRampId}` });
    } else if (this.cents !== 97) {
      fail(`a wire quoting the organization's reference was ${answer.body.disposition}: ${JSON.stringify(answer.body)}`);
    }
    await ledgerHolds(organization.organizationId);
  }
  toString = () => `WireDeposit(org ${this.organization}, ${decimal(this.whole, this.cents)} USD)`;
}

/**
 * A simulated wire whose answer was lost (the connection dropped, or 503) may or may not have been
 * posted: the organization's deposits from wires are read, and one the model does not know is this
 * wire's (the lane sends one command at a time). At most one is.
 */
async function adoptWirePosted(model: Model, real: Real, organization: number, cents: number): Promise<void> {
  const { apiKey } = real.organizations[organization]!;
  const known = new Set(model.operations.map((operation) => operation.id));
  const unknown: string[] = [];
  for (let cursor: string | undefined, first = true; first || cursor; first = false) {
    const page = await real.world.request('GET', `/treasury/onramps?origin=deposit&limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, apiKey);
    if (page.status !== 200) fail(`GET /treasury/onramps answered ${page.status}: ${JSON.stringify(page.body)}`);
    for (const row of page.body.onramps as { onRampId: string }[]) if (!known.has(row.onRampId)) unknown.push(row.onRampId);
    cursor = page.body.hasMore ? page.body.nextCursor : undefined;
  }
  if (unknown.length > 1) fail(`a wire whose answer was lost left ${unknown.length} deposits the workload never started: ${unknown.join(', ')}`);
  countChecks('a wire whose answer was lost: looked for, not posted again');
  if (unknown.length === 0 || cents === 97) return;
  const id = unknown[0]!;
  // Its end, checked against this wire's band like any deposit's, says whether it is this wire's.
  model.operations.push({ kind: 'deposit', id, organization, ends: depositEnds(cents), statusPath: `/treasury/onramp/${id}` });
}

class Batch implements Command {
  /**
   * `ledgerNow`: the organization's ledger checked at once. A backlog's top-up leaves it to the
   * backlog's end: with a thousand of its payments moving, the ledger never stands still for a read.
   * `resendFor`: how long a 503 is sent again past the integrator's own patience (ms; 0: not). The
   * backlog's top-ups, sent while the stack is at its busiest, meet the function's deadline again
   * and again (a 503 after 179 s of resends in a default run) and are accepted once the load eases.
   */
  constructor(readonly organization: number, readonly items: { whole: number; cents: number }[], readonly copies: number, readonly ledgerNow = true, readonly resendFor = 0) {}
  /** Set once answered: whether the batch was accepted (not REJECTED), its items now operations of the model. */
  accepted: boolean | undefined;
  check = (model: Readonly<Model>) => this.organization < model.organizations;
  async run(model: Model, real: Real): Promise<void> {
    const organization = real.organizations[this.organization]!;
    const batchId = nextKey(real, 'batch');
    const body = {
      batchId,
      corridor: { to: 'MXN', destinationCountry: 'MX' },
      provider: batchProvider,
      items: this.items.map((item, index) => ({ itemRef: `i${index}`, sendAmount: { amount: decimal(item.whole, item.cents), currency: 'USDC' }, recipientReference: 'chaos', beneficiary })),
    };
    const send = () => real.world.request('POST', '/batches', organization.apiKey, body);
    const answer = this.resendFor > 0 ? await resentWhileUnavailable(real, 'batch', send, this.resendFor) : await sentTogether(real, 'batch', this.copies, send, (body) => body?.batchId);
    if (answer.status !== 202) fail(`batch ${batchId} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    this.accepted = answer.body.state !== 'REJECTED';
    if (this.accepted) {
      // Each item is a payment of its own (its workflow, its movements, its events), checked as one.
      counted(real, 'batch item', this.items.length);
      this.items.forEach((item, index) => {
        const id = `${batchId}:i${index}`;
        model.operations.push({ kind: 'batchItem', id, organization: this.organization, ends: paymentEnds(item.cents), statusPath: `/transactions/${encodeURIComponent(id)}`, amount: decimal(item.whole, item.cents) });
      });
    }
    if (this.ledgerNow) await ledgerHolds(organization.organizationId);
  }
  toString = () => `Batch(org ${this.organization}, ${this.items.map((item) => decimal(item.whole, item.cents)).join(' + ')} USDC, ${this.copies}×)`;
}

/**
 * One of the contract's largest batches (the kills phase): funded first by a wire of its total and
 * more, as an integrator tops up before a payroll run (the wire is a deposit of the model, waited
 * on until delivered), then 300 to 1,000 items at once: hundreds of payments running when a kill
 * comes. Without the wire the bursts before it have mostly spent the balance, and it is REJECTED.
 */
class FundedBatch implements Command {
  /** `fundedItems`: the wire covers this many items (the batch's own, or more for batches to come); `ledgerNow` as Batch's. */
  constructor(readonly organization: number, readonly count: number, readonly cents: number[], readonly fundedItems = count, readonly ledgerNow = true) {}
  check = (model: Readonly<Model>) => this.organization < model.organizations;
  async run(model: Model, real: Real): Promise<void> {
    const items = bandedItems(this.count, this.cents);
    // Each item at most 8.99 USDC; the wire's USD arrives as USDC less its fees: a tenth more covers them.
    const funding = Math.ceil(this.fundedItems * 9 * 1.1);
    const before = model.operations.length;
    await new WireDeposit(this.organization, funding, 0).run(model, real);
    const deposit = model.operations.slice(before).find((operation) => operation.kind === 'deposit');
    if (deposit) await endOf(real.world, real.organizations[this.organization]!, deposit);
    await new Batch(this.organization, items, 1, this.ledgerNow).run(model, real);
  }
  toString = () => `FundedBatch(org ${this.organization}, ${this.count} items, cents ${this.cents.join('/')})`;
}

/** Items of 5 to 8 USDC with their cents drawn in turn from `cents` (the simulators' bands). */
function bandedItems(count: number, cents: readonly number[]): { whole: number; cents: number }[] {
  return Array.from({ length: count }, (_, index) => ({ whole: 5 + (index % 4), cents: cents[index % cents.length]! }));
}

/**
 * The kills phase's backlog opens with this: a funded batch of `items` items, amounts in every band
 * of the payment simulators; the wire covers `fundedItems` items, the top-ups (backlogTopUp) included.
 */
export function backlogBatch(organization: number, items: number, fundedItems: number): Command {
  return new FundedBatch(organization, items, [...paymentCents], fundedItems, false);
}

/** More of the backlog: a batch of `items` items from the balance the opening's wire left. */
export function backlogTopUp(organization: number, items: number): Batch {
  return new Batch(organization, bandedItems(items, paymentCents), 1, false, 10 * 60_000);
}

/**
 * Different payments of one organization at once, together more than it may hold: each is taken
 * or refused whole (insufficient funds), never the balance below zero (issue 29's "100 concurrent
 * debits of 10 against a balance of 500 → exactly 50", at the workload's scale).
 */
class Burst implements Command {
  constructor(readonly organization: number, readonly count: number, readonly whole: number) {}
  check = (model: Readonly<Model>) => this.organization < model.organizations;
  async run(model: Model, real: Real): Promise<void> {
    const organization = real.organizations[this.organization]!;
    const bodies = Array.from({ length: this.count }, () => ({
      idempotencyKey: nextKey(real, 'burst'),
      corridor: { to: 'MXN', destinationCountry: 'MX' },
      sendAmount: { amount: decimal(this.whole, 0), currency: 'USDC' },
      recipientReference: 'chaos',
      beneficiary,
    }));
    const answers = await Promise.all(bodies.map((body) => real.world.request('POST', '/transactions', organization.apiKey, body)));
    counted(real, 'payment', this.count);
    answers.forEach((answer, index) => recordPayment(model, this.organization, bodies[index]!, 0, answer));
    await ledgerHolds(organization.organizationId);
  }
  toString = () => `Burst(org ${this.organization}, ${this.count} × ${this.whole} USDC)`;
}

/**
 * Many payments of one organization sent at once, each its own (the kills phase's: with several
 * lanes flooding, hundreds of operations are in flight when the stack is killed). Amounts in every
 * band, small enough that the balance covers them: each is taken, or refused whole for funds.
 */
class Flood implements Command {
  constructor(readonly organization: number, readonly count: number, readonly cents: number[]) {}
  check = (model: Readonly<Model>) => this.organization < model.organizations;
  async run(model: Model, real: Real): Promise<void> {
    const organization = real.organizations[this.organization]!;
    const payments = Array.from({ length: this.count }, (_, index) => {
      const cents = this.cents[index % this.cents.length]!;
      const body = { idempotencyKey: nextKey(real, 'flood'), corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: decimal(2 + (index % 7), cents), currency: 'USDC' }, recipientReference: 'chaos', beneficiary };
      return { body, cents };
    });
    const answers = await Promise.all(payments.map(({ body }) => real.world.request('POST', '/transactions', organization.apiKey, body)));
    counted(real, 'payment', this.count);
    answers.forEach((answer, index) => recordPayment(model, this.organization, payments[index]!.body, payments[index]!.cents, answer));
    await ledgerHolds(organization.organizationId);
  }
  toString = () => `Flood(org ${this.organization}, ${this.count} payments)`;
}

/** An earlier request sent again with its key, long after: the same operation, never a second one. */
class Replay implements Command {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>) => model.operations.some((operation) => operation.replay);
  async run(model: Model, real: Real): Promise<void> {
    const replayable = model.operations.filter((operation) => operation.replay);
    const operation = replayable[this.pick % replayable.length]!;
    const organization = real.organizations[operation.organization]!;
    const { method, path, body } = operation.replay!;
    const answer = await real.world.request(method, path, organization.apiKey, body);
    counted(real, `replay of a ${operation.kind}`);
    const id = answer.body?.transactionId ?? answer.body?.withdrawalId ?? answer.body?.onRampId ?? answer.body?.offRampId;
    if (answer.status !== 202 || id !== operation.id) fail(`replaying ${operation.kind} ${operation.id} answered ${answer.status} ${JSON.stringify(answer.body)}`);
    countChecks('a replay names the same operation');
    await ledgerHolds(organization.organizationId);
  }
  toString = () => `Replay(#${this.pick})`;
}

/** The organization key rotated: the new one works at once, the old one never again. */
class RotateKey implements Command {
  constructor(readonly organization: number) {}
  check = (model: Readonly<Model>) => this.organization < model.organizations;
  async run(_model: Model, real: Real): Promise<void> {
    const organization = real.organizations[this.organization]!;
    const old = organization.apiKey;
    const answer = await real.world.request('POST', '/api-keys/rotate', old, undefined);
    counted(real, 'key rotation');
    if (answer.status === 401 && answer.attempts > 1) {
      // The first rotation took effect and the new key died with the stack's answer: the old key is
      // refused, as it must be, and the organization asks an operator for a new one (`admin org rotate-key`).
      const replaced = await real.world.operator(() => replaceOrganizationKeys(organization.organizationId, config().SERVICE_ENVIRONMENT));
      if (!replaced) fail(`no organization ${organization.organizationId} to give a new key`);
      organization.apiKey = replaced.apiKey.apiKey;
      countChecks('a rotation whose answer a kill lost: the old key is refused');
      return;
    }
    if (answer.status !== 200 || typeof answer.body?.apiKey !== 'string') fail(`POST /api-keys/rotate answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    organization.apiKey = answer.body.apiKey;
    const withOld = await real.world.request('GET', '/balance', old);
    const withNew = await real.world.request('GET', '/balance', organization.apiKey);
    counted(real, 'balance read', 2);
    if (withOld.status !== 401) fail(`the rotated-out key still answers ${withOld.status}`);
    if (withNew.status !== 200) fail(`the new key answers ${withNew.status}`);
    countChecks('a rotated key dies at once');
  }
  toString = () => `RotateKey(org ${this.organization})`;
}

/**
 * A teammate joins as a person would: invited with the organization key (the e-mail read from the
 * stack's outbox, the token taken from its accept link), accepted over HTTP. Answers the member's
 * id and key.
 */
async function joinedMember(real: Real, organization: ChaosOrganization, role: string): Promise<{ id: string; apiKey: string } | undefined> {
  const email = `${nextKey(real, 'member')}@example.com`;
  const invited = await real.world.request('POST', '/members/invitations', organization.apiKey, { email, role, name: 'Chaos teammate' });
  const invitation =
    invited.status === 409 && invited.attempts > 1
      ? await teamMember(real, organization, (member) => member.email === email && member.status === 'invited')
      : invited.status === 201 && invited.body?.emailDelivered === true
        ? invited.body.member
        : undefined;
  if (!invitation) fail(`POST /members/invitations answered ${invited.status}: ${JSON.stringify(invited.body)}`);
  if (invited.status === 409) {
    // The kill may have come between the invitation and its e-mail: it is sent again, a fresh link.
    const resent = await real.world.request('POST', `/members/${encodeURIComponent(invitation.id)}/invitations`, organization.apiKey);
    if (resent.status !== 200 || resent.body?.emailDelivered !== true) fail(`POST /members/${invitation.id}/invitations answered ${resent.status}: ${JSON.stringify(resent.body)}`);
    countChecks('an invitation whose answer a kill lost: found and sent again');
  }
  const message = await latestMessageTo(real.world.outbox, email);
  const token = message && invitationTokenOf(message);
  if (!token) fail(`no invitation with an accept link reached ${email}`);
  const accepted = await real.world.request('POST', '/invitations/accept', undefined, { token });
  if (accepted.status === 400 && accepted.body?.error === 'invalid_invite' && accepted.attempts > 1) {
    // The first accept took effect and its answer, the key, died with the stack: the teammate is on the
    // team without a key it knows (it would ask for a new invitation). It is removed; the command ends.
    if (!(await teamMember(real, organization, (member) => member.id === invitation.id && member.status === 'active'))) fail(`POST /invitations/accept answered ${accepted.status} after ${accepted.attempts} attempts and ${invitation.id} is not active`);
    countChecks('an accept whose answer a kill lost: the teammate is active');
    await removedMember(real, organization, { id: invitation.id });
    return undefined;
  }
  if (accepted.status !== 200 || typeof accepted.body?.apiKey !== 'string' || accepted.body.member?.id !== invitation.id) fail(`POST /invitations/accept answered ${accepted.status}: ${JSON.stringify(accepted.body)}`);
  return { id: accepted.body.member.id as string, apiKey: accepted.body.apiKey as string };
}

/**
 * A member of the team's list, read as an integrator reads it after a kill lost the answer to a team
 * change that took effect (team changes carry no idempotency key, so its resend is refused): an
 * invitation sent twice is 409, a member removed twice 404, an invitation accepted twice refused.
 */
async function teamMember(real: Real, organization: ChaosOrganization, which: (member: TeamMember) => boolean): Promise<TeamMember | undefined> {
  const team = await real.world.request('GET', '/members', organization.apiKey);
  counted(real, 'member list read');
  if (team.status !== 200) fail(`GET /members answered ${team.status}: ${JSON.stringify(team.body)}`);
  return (team.body.members as TeamMember[]).find(which);
}

interface TeamMember {
  id: string;
  email: string;
  status: string;
}

/** The member removed with the organization key: its key is refused at once, the organization's never. */
async function removedMember(real: Real, organization: ChaosOrganization, member: { id: string; apiKey?: string }): Promise<void> {
  const removed = await real.world.request('DELETE', `/members/${encodeURIComponent(member.id)}`, organization.apiKey);
  // Resent after a kill lost the answer to the first, which took effect: 404, and the team no longer holds it.
  const lostAnswer = removed.status === 404 && removed.attempts > 1 && (await teamMember(real, organization, (each) => each.id === member.id)) === undefined;
  if (!lostAnswer && (removed.status !== 200 || removed.body?.rescinded !== false || removed.body?.member?.status !== 'removed')) fail(`DELETE /members/${member.id} answered ${removed.status}: ${JSON.stringify(removed.body)}`);
  if (!member.apiKey) return;
  const withRemoved = await real.world.request('GET', '/balance', member.apiKey);
  const withOrganization = await real.world.request('GET', '/balance', organization.apiKey);
  counted(real, 'balance read', 2);
  if (withRemoved.status !== 401) fail(`a removed member's key still answers ${withRemoved.status}`);
  if (withOrganization.status !== 200) fail(`the organization key answers ${withOrganization.status} after a member was removed`);
  countChecks("a removed member's key dies at once");
}

/** A teammate joins, uses its key, and is removed: its key is refused at once, the organization's never. */
class MemberChange implements Command {
  constructor(readonly organization: number, readonly role: string) {}
  check = (model: Readonly<Model>) => this.organization < model.organizations;
  async run(_model: Model, real: Real): Promise<void> {
    const organization = real.organizations[this.organization]!;
    counted(real, 'member change (invited, accepted, removed)');
    const member = await joinedMember(real, organization, this.role);
    if (!member) return;
    const asMember = await real.world.request('GET', '/balance', member.apiKey);
    counted(real, 'balance read');
    if (asMember.status !== 200) fail(`a new ${this.role}'s key answers GET /balance ${asMember.status}`);
    await removedMember(real, organization, member);
  }
  toString = () => `MemberChange(org ${this.organization}, ${this.role})`;
}

/** GET /members with a member's key: allowed exactly when its role holds `member.read` (functions/domain/permissions.ts), else 403 `forbidden`. */
async function actsAs(real: Real, member: { id: string; apiKey: string }, role: Role): Promise<void> {
  const answer = await real.world.request('GET', '/members', member.apiKey);
  counted(real, 'member list read');
  const allowed = roleHasPermission(role, 'member.read');
  if (allowed ? answer.status !== 200 : answer.status !== 403 || answer.body?.error !== 'forbidden') {
    fail(`GET /members with the key of ${member.id}, now ${role}, answered ${answer.status} ${JSON.stringify(answer.body?.error)}: ${allowed ? 'allowed' : '403 forbidden'} was due`);
  }
}

/**
 * A teammate's role changed (PATCH /members/:id with the organization key, the owner's): the key it
 * holds acts with the new role from the next request on (GET /members needs `member.read`). Only a
 * role below the caller's own is granted: owner never, and an admin may not change an admin (itself).
 */
class MemberRoleChange implements Command {
  constructor(readonly organization: number, readonly from: Role, readonly to: Role) {}
  check = (model: Readonly<Model>) => this.organization < model.organizations;
  async run(_model: Model, real: Real): Promise<void> {
    const organization = real.organizations[this.organization]!;
    const member = await joinedMember(real, organization, this.from);
    if (!member) return;
    await actsAs(real, member, this.from);
    const path = `/members/${encodeURIComponent(member.id)}`;
    const toOwner = await real.world.request('PATCH', path, organization.apiKey, { role: 'owner' });
    if (toOwner.status !== 403 || toOwner.body?.error !== 'forbidden') fail(`PATCH ${path} to owner answered ${toOwner.status}: ${JSON.stringify(toOwner.body)}`);
    if (this.from === 'admin') {
      const itself = await real.world.request('PATCH', path, member.apiKey, { role: 'viewer' });
      if (itself.status !== 403 || itself.body?.error !== 'forbidden') fail(`an admin changing its own role answered ${itself.status}: ${JSON.stringify(itself.body)}`);
    }
    countChecks('a role not below the caller\'s own is refused');
    const changed = await real.world.request('PATCH', path, organization.apiKey, { role: this.to });
    counted(real, 'member role change');
    if (changed.status !== 200 || changed.body?.member?.role !== this.to) fail(`PATCH ${path} from ${this.from} to ${this.to} answered ${changed.status}: ${JSON.stringify(changed.body)}`);
    await actsAs(real, member, this.to);
    countChecks("a member's key acts with its new role at once");
    await removedMember(real, organization, member);
  }
  toString = () => `MemberRoleChange(org ${this.organization}, ${this.from} → ${this.to})`;
}

/** Event types no later state of their subject follows: a redelivery of one meets its subject at rest. */
const finalEventTypes = new Set(['transaction.reconciled', 'transaction.refunded', 'onramp.delivered', 'onramp.refunded', 'offramp.paid']);

/** An event of a final type the receiver already got for the organization, signed, picked by `pick` (first copies, in arrival order). */
function sentEvent(real: Real, organization: ChaosOrganization, pick: number): ReceivedDelivery | undefined {
  const seen = new Set<string>();
  const sent = real.world.receiver.deliveries.filter((delivery) => {
    if (seen.has(delivery.id) || recipientOf(delivery, real.organizations) !== organization) return false;
    const payload = verifiedPayload(delivery, organization);
    if (!payload || !finalEventTypes.has(payload.type)) return false;
    seen.add(delivery.id);
    return true;
  });
  return sent.length === 0 ? undefined : sent[pick % sent.length];
}

/**
 * POST /events/{eventId}/redeliver: 202 and one attempt to the endpoint as registered now; the
 * receiver gets the event again at `path`, with the same webhook-id and the same bytes, signed with
 * a secret the organization holds. Answers that delivery.
 */
async function redelivered(real: Real, organization: ChaosOrganization, event: ReceivedDelivery, path: string): Promise<ReceivedDelivery> {
  const sentAt = Date.now();
  const answer = await real.world.request('POST', `/events/${encodeURIComponent(event.id)}/redeliver`, organization.apiKey);
  counted(real, 'webhook redelivery');
  if (answer.status !== 202 || answer.body?.eventId !== event.id || !(answer.body?.redelivery >= 1) || answer.body?.url !== `${real.world.receiver.url}${path}`) {
    fail(`POST /events/${event.id}/redeliver answered ${answer.status}: ${JSON.stringify(answer.body)} (the endpoint is ${real.world.receiver.url}${path})`);
  }
  const again = await until(
    async () => real.world.receiver.deliveries.find((delivery) => delivery.id === event.id && delivery.receivedAt >= sentAt && delivery.path === path),
    (delivery) => delivery !== undefined,
    { what: `event ${event.id} redelivered to ${path}`, timeoutMs: settleTimeoutMs, intervalMs: 50 },
  ).catch(() => fail(`event ${event.id}, redelivered, never reached ${path} within ${settleTimeoutMs / 1000} s`));
  if (again!.body !== event.body) fail(`event ${event.id} redelivered with other bytes: ${again!.body} (first: ${event.body})`);
  if (!verifiedPayload(again!, organization)) fail(`event ${event.id} redelivered to ${path} is signed with none of the organization's secrets`);
  return again!;
}

/**
 * An event the receiver got, sent again on request: it arrives again, the same id, bytes and a
 * valid signature, and nothing else changes: its subject's state, the subject's journal entries,
 * the event's delivery status (delivered).
 */
class Redeliver implements Command {
  constructor(readonly organization: number, readonly pick: number) {}
  check = (model: Readonly<Model>) => this.organization < model.organizations;
  async run(model: Model, real: Real): Promise<void> {
    const organization = real.organizations[this.organization]!;
    const event = sentEvent(real, organization, this.pick);
    if (!event) return;
    const subjectId = subjectOf(verifiedPayload(event, organization)!);
    const subject = model.operations.find((operation) => operation.organization === this.organization && operation.id === subjectId);
    if (!subject) fail(`event ${event.id} is about ${subjectId}, which the workload never started`);
    const ownEntries = async () => (await ledgerHolds(organization.organizationId)).filter((entry) => entry.operation.id === subject.id || entry.operation.id === onRampDepositId(subject.id)).map((entry) => entry.entryId).sort().join(', ');
    const [stateBefore, entriesBefore] = [(await real.world.request('GET', subject.statusPath, organization.apiKey)).body?.state, await ownEntries()];
    await redelivered(real, organization, event, new URL(organization.webhookUrl).pathname);
    const [stateAfter, entriesAfter] = [(await real.world.request('GET', subject.statusPath, organization.apiKey)).body?.state, await ownEntries()];
    if (stateAfter !== stateBefore || entriesAfter !== entriesBefore) fail(`redelivering event ${event.id} changed ${subject.kind} ${subject.id}: ${stateBefore} (${entriesBefore}) became ${stateAfter} (${entriesAfter})`);
    // The service records an attempt once the receiver has answered it, after the receiver kept its copy.
    const read = () => real.world.request('GET', `/events/${encodeURIComponent(event.id)}`, organization.apiKey);
    const record = await until(read, (answer) => answer.status === 200 && answer.body?.deliveryStatus === 'delivered', {
      what: `event ${event.id} delivered`, timeoutMs: settleTimeoutMs, intervalMs: 50,
    }).catch(async () => read());
    if (record.status !== 200 || record.body?.deliveryStatus !== 'delivered') fail(`GET /events/${event.id} after a redelivery answered ${record.status} ${JSON.stringify(record.body?.deliveryStatus)}`);
    countChecks('a redelivery arrives again (same id, bytes, signed); nothing else moves');
  }
  toString = () => `Redeliver(org ${this.organization}, #${this.pick})`;
}

/**
 * PUT /webhooks/endpoint: 200 with the URL asked for, and a secret exactly when `issues` (the first
 * registration, a rotation), which the organization then holds. A PUT resent after its first copy
 * landed (a kill took the answer) registered already: its answer has no secret; undefined then.
 */
async function putEndpoint(real: Real, organization: ChaosOrganization, body: { url: string; rotateSecret?: boolean }, issues: boolean): Promise<Answer | undefined> {
  const answer = await real.world.request('PUT', '/webhooks/endpoint', organization.apiKey, body);
  if (answer.status !== 200 || answer.body?.url !== body.url || answer.body?.status !== 'enabled') fail(`PUT /webhooks/endpoint ${JSON.stringify(body)} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  const secret = answer.body.secret as string | undefined;
  if (!issues && secret !== undefined) fail(`PUT /webhooks/endpoint ${JSON.stringify(body)} issued a secret: replacing the URL keeps it`);
  if (issues && secret === undefined) {
    if (answer.attempts > 1 && !body.rotateSecret) return undefined;
    fail(`PUT /webhooks/endpoint ${JSON.stringify(body)} issued no secret (${answer.attempts} attempt(s))`);
  }
  if (secret !== undefined) organization.webhookSecrets.push(secret);
  return answer;
}

type WebhookChangeKind = 'move' | 'rotate' | 'recreate';

/**
 * The organization's webhook endpoint changed while events flow, and always registered again at
 * the end of the command:
 * - move: to another path of the receiver and back; the secret is kept, and an event redelivered
 *   meanwhile arrives at the new path;
 * - rotate: `rotateSecret`; the old secret keeps signing beside the new for 24 hours, so a delivery
 *   verifies with either;
 * - recreate: DELETE, then PUT: GET answers 404 and a redelivery 409 `conflict` meanwhile, and the
 *   new registration issues a new secret. Events raised meanwhile may never be sent, and deliveries
 *   in flight stop: the gap is recorded in the model (the end's checks redeliver what it kept).
 */
class WebhookChange implements Command {
  constructor(readonly organization: number, readonly how: WebhookChangeKind, readonly pick: number) {}
  check = (model: Readonly<Model>) => this.organization < model.organizations;
  async run(model: Model, real: Real): Promise<void> {
    const organization = real.organizations[this.organization]!;
    const home = new URL(organization.webhookUrl).pathname;
    const event = sentEvent(real, organization, this.pick);
    if (this.how === 'move') {
      await putEndpoint(real, organization, { url: `${organization.webhookUrl}/moved?via=chaos` }, false);
      counted(real, 'webhook endpoint moved (and back)');
      if (event) await redelivered(real, organization, event, `${home}/moved?via=chaos`);
      await putEndpoint(real, organization, { url: organization.webhookUrl }, false);
      countChecks('a moved endpoint keeps its secret and receives at its new URL');
    } else if (this.how === 'rotate') {
      const previous = organization.webhookSecrets.at(-1)!;
      const rotatedAt = Date.now();
      const answer = (await putEndpoint(real, organization, { url: organization.webhookUrl, rotateSecret: true }, true))!;
      counted(real, 'webhook secret rotation');
      const overlap = Date.parse(answer.body.previousSecretExpiresAt) - rotatedAt;
      if (!(Math.abs(overlap - 24 * 3600_000) < 60_000)) fail(`a rotated secret keeps signing until ${answer.body.previousSecretExpiresAt}, not 24 hours on`);
      if (event) {
        const again = await redelivered(real, organization, event, home);
        // A rotation resent after its first copy landed rotated twice: the secret before it no longer signs.
        for (const secret of answer.attempts === 1 ? [previous, organization.webhookSecrets.at(-1)!] : [organization.webhookSecrets.at(-1)!]) {
          try {
            verify(again, secret);
          } catch (error) {
            fail(`a delivery after a rotation does not verify with the ${secret === previous ? 'previous' : 'new'} secret: ${(error as Error).message}`);
          }
        }
      }
      countChecks('after a rotation deliveries verify with the new secret and the old');
    } else {
      const from = Date.now();
      const deleted = await real.world.request('DELETE', '/webhooks/endpoint', organization.apiKey);
      counted(real, 'webhook endpoint deleted and registered again');
      if (!(deleted.status === 200 && deleted.body?.deleted === true) && !(deleted.status === 404 && deleted.attempts > 1)) fail(`DELETE /webhooks/endpoint answered ${deleted.status}: ${JSON.stringify(deleted.body)}`);
      const gone = await real.world.request('GET', '/webhooks/endpoint', organization.apiKey);
      if (gone.status !== 404) fail(`GET /webhooks/endpoint after its DELETE answered ${gone.status}: ${JSON.stringify(gone.body)}`);
      if (event) {
        const refused = await real.world.request('POST', `/events/${encodeURIComponent(event.id)}/redeliver`, organization.apiKey);
        if (refused.status !== 409 || refused.body?.error !== 'conflict') fail(`a redelivery with no endpoint registered answered ${refused.status}: ${JSON.stringify(refused.body)}`);
      }
      let registered = await putEndpoint(real, organization, { url: organization.webhookUrl }, true);
      // Its secret lost to a kill: a rotation issues one the organization holds; what was signed before it cannot be verified.
      const secretLost = registered === undefined;
      if (secretLost) registered = await putEndpoint(real, organization, { url: organization.webhookUrl, rotateSecret: true }, true);
      model.webhookGaps.push({ organization: this.organization, from, to: registered!.answeredAt, secretLost });
      countChecks('a deleted endpoint is gone at once and takes no redelivery');
    }
  }
  toString = () => `WebhookChange(org ${this.organization}, ${this.how}, #${this.pick})`;
}

/**
 * A wire quoting no organization's reference (a reference of none, or none at all), as the house
 * bank's feed reports it (the feed adapter calls the core function, as simulate-wire does for a
 * wire quoting the reference): parked for manual reconciliation, nothing credited. An operator
 * then assigns it to the organization (`admin resolve wire-line`): a deposit starts, which ends as
 * its amount's band says and is credited once; the resolution repeated changes nothing.
 */
class UnmatchedWire implements Command {
  constructor(readonly organization: number, readonly whole: number, readonly cents: number, readonly named: boolean, readonly repeats: number) {}
  check = (model: Readonly<Model>) => this.organization < model.organizations;
  async run(model: Model, real: Real): Promise<void> {
    const organization = real.organizations[this.organization]!;
    const statementLineId = nextKey(real, 'line');
    const referenceText = this.named ? `PAYMENT ${depositReferenceOf(`org_${ulid()}`)} INVOICE 7` : `INVOICE ${statementLineId} THANK YOU`;
    const line = await real.world.operator(() => ingestStatementLine({ statementLineId, currency: 'USD', amount: BigInt(this.whole * 100 + this.cents), referenceText }));
    counted(real, 'unmatched wire');
    if (line.disposition !== 'parked' || line.organizationId !== null || line.onRampId !== null) fail(`a wire quoting ${referenceText} was not parked: ${JSON.stringify(line)}`);
    const args = [statementLineId, '--org', organization.organizationId, '--note', 'chaos: payer identified by operations'];
    const resolve = () => real.world.operator(() => runDepositResolution(parseDepositResolution('wire-line', args)));
    const first = await resolve();
    counted(real, 'resolution of an unmatched wire');
    const onRampId = first.onRampId as string | null;
    if (first.resolved !== true || first.status !== 'pending' || first.organizationId !== organization.organizationId || !onRampId) fail(`assigning wire ${statementLineId} to ${organization.organizationId} answered ${JSON.stringify(first)}`);
    model.operations.push({ kind: 'deposit', id: onRampId!, organization: this.organization, ends: depositEnds(this.cents), statusPath: `/treasury/onramp/${onRampId}` });
    for (let repeat = 0; repeat < this.repeats; repeat += 1) {
      const again = await resolve();
      counted(real, 'resolution of an unmatched wire');
      if (again.resolved !== false || again.onRampId !== onRampId || again.status !== 'pending') fail(`assigning wire ${statementLineId} again answered ${JSON.stringify(again)}; nothing was to change`);
      countChecks('a wire assigned again changes nothing');
    }
    await ledgerHolds(organization.organizationId);
  }
  toString = () => `UnmatchedWire(org ${this.organization}, ${decimal(this.whole, this.cents)} USD, ${this.named ? "an unknown organization's reference" : 'no reference'}, assigned ${1 + this.repeats}×)`;
}

/** GET /balance against the ledger it reports. */
class ReadBalance implements Command {
  constructor(readonly organization: number) {}
  check = (model: Readonly<Model>) => this.organization < model.organizations;
  async run(_model: Model, real: Real): Promise<void> {
    const organization = real.organizations[this.organization]!;
    const answer = await real.world.request('GET', '/balance', organization.apiKey);
    counted(real, 'balance read');
    if (answer.status !== 200) fail(`GET /balance answered ${answer.status}`);
    for (const field of ['available', 'settling', 'total']) {
      if (!/^\d+$/.test(String(answer.body[field]))) fail(`GET /balance ${field} is ${JSON.stringify(answer.body[field])}`);
    }
    if (BigInt(answer.body.total) !== BigInt(answer.body.available) + BigInt(answer.body.settling)) fail(`GET /balance total is not available + settling: ${JSON.stringify(answer.body)}`);
    countChecks('balance answer adds up');
    await ledgerHolds(organization.organizationId);
  }
  toString = () => `ReadBalance(org ${this.organization})`;
}

/** The organization's off-ramp beneficiary in `currency`, registered over HTTP on first use (no idempotency key: registered once, by the harness). */
async function offRampBeneficiary(real: Real, organization: ChaosOrganization, currency: string): Promise<string> {
  const known = organization.offRampBeneficiaries[currency];
  if (known) return known;
  const body = sampleOffRampBeneficiaries.find((sample) => sample.currency === currency)!;
  const answer = await real.world.request('POST', '/treasury/beneficiaries', organization.apiKey, body);
  counted(real, 'beneficiary registration');
  if (answer.status !== 201 || typeof answer.body?.id !== 'string') fail(`POST /treasury/beneficiaries answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  organization.offRampBeneficiaries[currency] = answer.body.id;
  return answer.body.id;
}

/**
 * USDC off-ramped to a registered bank beneficiary, with a quote bound to it or without: 202 and
 * the off-ramp named by its key, whatever the balance (the contract gives POST no insufficient
 * funds: one the balance does not cover ends FAILED with nothing moved).
 */
class OffRamp implements Command {
  constructor(readonly organization: number, readonly whole: number, readonly cents: number, readonly currency: string, readonly quoted: boolean, readonly copies: number) {}
  check = (model: Readonly<Model>) => this.organization < model.organizations;
  async run(model: Model, real: Real): Promise<void> {
    const organization = real.organizations[this.organization]!;
    const beneficiaryId = await offRampBeneficiary(real, organization, this.currency);
    const amount = decimal(this.whole, this.cents);
    let quoteId: string | undefined;
    let quoteExpiresAt = Infinity;
    if (this.quoted) {
      const quote = await real.world.request('GET', `/treasury/offramp/quote?amount=${amount}&beneficiaryId=${beneficiaryId}`, organization.apiKey);
      counted(real, 'off-ramp quote');
      if (quote.status !== 200) fail(`GET /treasury/offramp/quote answered ${quote.status}: ${JSON.stringify(quote.body)}`);
      // At or above the minimum a quote has a net and an id; the workload's amounts all are.
      if (typeof quote.body.quoteId !== 'string') fail(`an off-ramp quote of ${amount} USDC has no quoteId: ${JSON.stringify(quote.body)}`);
      quoteId = quote.body.quoteId;
      quoteExpiresAt = Date.parse(quote.body.expiresAt);
    }
    const idempotencyKey = nextKey(real, 'ofr');
    const body = { idempotencyKey, amount: { amount, currency: 'USDC' }, beneficiaryId, ...(quoteId ? { quoteId } : {}) };
    const answer = await sentTogether(real, 'off-ramp', this.copies, () => real.world.request('POST', '/treasury/offramp', organization.apiKey, body), (body) => body?.offRampId);
    // The quote ran out while the request waited out a restart (a minute's quote; the contract
    // refuses an expired one like a used one): refused before anything was stored, if the attempt
    // that was answered was sent after its expiry. An earlier attempt that took effect would have
    // been answered with the off-ramp, which the intake looks up before the quote.
    if (answer.status === 422 && answer.body?.error === 'quote_already_used' && answer.sentAt >= quoteExpiresAt) {
      const stored = await real.world.request('GET', `/treasury/offramp/${idempotencyKey}`, organization.apiKey);
      if (stored.status !== 404) fail(`off-ramp ${idempotencyKey}, refused for its expired quote, reads ${stored.status}: ${JSON.stringify(stored.body)}`);
      countChecks('an off-ramp on a quote that expired meanwhile is refused, nothing stored');
      await ledgerHolds(organization.organizationId);
      return;
    }
    if (answer.status !== 202 || answer.body.offRampId !== idempotencyKey) fail(`off-ramp ${idempotencyKey} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    model.operations.push({ kind: 'offramp', id: idempotencyKey, organization: this.organization, ends: offRampEnds(this.cents), statusPath: `/treasury/offramp/${idempotencyKey}`, replay: { method: 'POST', path: '/treasury/offramp', body }, amount });
    await ledgerHolds(organization.organizationId);
  }
  toString = () => `OffRamp(org ${this.organization}, ${decimal(this.whole, this.cents)} USDC to ${this.currency}${this.quoted ? ', quoted' : ''}, ${this.copies}×)`;
}

/**
 * A PIX deposit: a BR Code opened (202, or 422 pix_onramp_unavailable in band 97, nothing stored),
 * then paid by the sandbox payer (202); the USDC is credited once its delivery confirms.
 */
class PixDeposit implements Command {
  constructor(readonly organization: number, readonly whole: number, readonly cents: number, readonly copies: number) {}
  check = (model: Readonly<Model>) => this.organization < model.organizations;
  async run(model: Model, real: Real): Promise<void> {
    const organization = real.organizations[this.organization]!;
    const idempotencyKey = nextKey(real, 'pix');
    const amount = decimal(this.whole, this.cents);
    const body = { idempotencyKey, amount: { amount } };
    const answer = await sentTogether(real, 'pix deposit', this.copies, () => real.world.request('POST', '/treasury/onramp/pix', organization.apiKey, body), (body) => body?.onRampId);
    if (this.cents === 97) {
      if (answer.status !== 422 || answer.body?.error !== 'pix_onramp_unavailable') fail(`a PIX deposit in band 97 answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      model.refused.set('pix deposit', (model.refused.get('pix deposit') ?? 0) + 1);
      const after = await real.world.request('GET', `/treasury/onramp/${idempotencyKey}`, organization.apiKey);
      if (after.status !== 404) fail(`a PIX deposit refused at intake is stored: GET answered ${after.status}`);
      return;
    }
    if (answer.status !== 202 || answer.body.onRampId !== idempotencyKey || answer.body.status !== 'AWAITING_PAYMENT') fail(`PIX deposit ${idempotencyKey} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    const paid = await real.world.request('POST', `/treasury/onramp/${idempotencyKey}/simulate-payment`, organization.apiKey);
    counted(real, 'pix payment (sandbox payer)');
    // A kill may lose the answer to a payment that went through: the resend finds the code paid, or
    // the deposit already past it (DELIVERED by then), and is refused as a real PIX provider refuses
    // a paid code; the deposit's own end says whether it was paid.
    const paidBeforeTheResend = paid.attempts > 1 && paid.status === 409 && paid.body?.error === 'not_simulatable';
    if (!paidBeforeTheResend && (paid.status !== 202 || paid.body?.simulated !== true)) fail(`paying PIX deposit ${idempotencyKey} answered ${paid.status} (attempt ${paid.attempts}): ${JSON.stringify(paid.body)}`);
    model.operations.push({ kind: 'deposit', id: idempotencyKey, organization: this.organization, ends: depositEnds(this.cents), statusPath: `/treasury/onramp/${idempotencyKey}`, replay: { method: 'POST', path: '/treasury/onramp/pix', body }, amount });
    await ledgerHolds(organization.organizationId);
  }
  toString = () => `PixDeposit(org ${this.organization}, ${decimal(this.whole, this.cents)} BRL, ${this.copies}×)`;
}

/**
 * USDC arriving on chain, as the custodian reports it (there is no HTTP endpoint: the custody
 * adapter calls the core function, as `admin chain-deposit simulate` does), sometimes reported
 * twice: credited once, on the home network at once, from another listed network after its move
 * home less the move fee. The organization sees it in GET /balance.
 */
class ChainDeposit implements Command {
  constructor(readonly organization: number, readonly network: string, readonly whole: number, readonly cents: number, readonly reports: number) {}
  check = (model: Readonly<Model>) => this.organization < model.organizations;
  async run(model: Model, real: Real): Promise<void> {
    const organization = real.organizations[this.organization]!;
    const amount = BigInt(this.whole) * 1_000_000n + BigInt(this.cents) * 10_000n;
    const first = await real.world.operator(() => simulateChainDeposit({ organizationId: organization.organizationId, network: this.network, amount }));
    counted(real, 'chain deposit');
    if (first.repeated) fail(`a new chain deposit ${first.deposit.txHash} was taken for a repeat`);
    for (let report = 1; report < this.reports; report += 1) {
      const again = await real.world.operator(() => simulateChainDeposit({ organizationId: organization.organizationId, network: this.network, amount, txHash: first.deposit.txHash }));
      counted(real, 'chain deposit reported again');
      if (!again.repeated || again.deposit.depositId !== first.deposit.depositId) fail(`chain deposit ${first.deposit.txHash} reported again was taken as new: ${JSON.stringify(again.deposit)}`);
      countChecks('a chain deposit reported again is the same deposit');
    }
    const fee = crossingFees.base?.[this.network] ?? 0n;
    model.operations.push({ kind: 'chainDeposit', id: first.deposit.depositId, organization: this.organization, ends: ['CREDITED'], statusPath: '', credits: amount > fee ? amount - fee : 0n });
    await ledgerHolds(organization.organizationId);
  }
  toString = () => `ChainDeposit(org ${this.organization}, ${decimal(this.whole, this.cents)} USDC on ${this.network}, reported ${this.reports}×)`;
}

const resolvableKinds = new Set<Operation['kind']>(['payment', 'batchItem', 'withdrawal', 'deposit', 'offramp']);
const resolvable = (operation: Operation) => resolvableKinds.has(operation.kind) && operation.resolvedFrom === undefined && operation.ends.some((end) => parkedStates.has(end));

/** What each resolution ends an operation as, from either parked state (lib/ops' resolutions, docs/decisions/063). */
const resolutions: Record<string, [string, string][]> = {
  payment: [['paid', 'RECONCILED'], ['not-paid', 'REFUNDED']],
  batchItem: [['paid', 'RECONCILED'], ['not-paid', 'REFUNDED']],
  withdrawal: [['sent', 'SENT'], ['not-sent', 'RETURNED']],
  deposit: [['delivered', 'DELIVERED'], ['not-delivered', 'FAILED']],
  offramp: [['paid', 'PAID'], ['refunded', 'REFUNDED']],
};

/**
 * An operator resolves an operation the workload parked (IN_DOUBT, NEEDS_ATTENTION), through the
 * `admin resolve` code in this process, once it has parked: the resolution answers the end it
 * reached, GET gives it at once, the money moves as that end says (the end checks) and its events
 * are the parked state's and the end's. An operation that did not park (a withdrawal that failed
 * for funds) is left as it is: the resolution must say nothing changed.
 */
class Resolve implements Command {
  constructor(readonly pick: number, readonly second: boolean) {}
  check = (model: Readonly<Model>) => model.operations.some(resolvable);
  async run(model: Model, real: Real): Promise<void> {
    const candidates = model.operations.filter(resolvable);
    const operation = candidates[this.pick % candidates.length]!;
    const organization = real.organizations[operation.organization]!;
    const parked = await endOf(real.world, organization, operation);
    const [as, end] = resolutions[operation.kind]![this.second ? 1 : 0]!;
    const txHash = `0x${operation.id.replace(/[^0-9a-f]/g, '').padEnd(64, 'a').slice(0, 64)}`;
    const status = await real.world.request('GET', operation.statusPath, organization.apiKey);
    const note = `chaos: confirmed ${as} with the provider`;
    const args = [organization.organizationId, operation.id, '--as', as, '--note', note, ...(as === 'sent' || as === 'delivered' ? ['--tx-hash', status.body?.txHash ?? txHash] : [])];
    const answer: { resolved: boolean; status: string; detail: string } = await real.world.operator(async () => {
      // A batch item is a payment once funded (its id `<batchId>:<itemRef>`): resolved as one.
      if (operation.kind === 'payment' || operation.kind === 'batchItem' || operation.kind === 'withdrawal') return resolveFromCli(operation.kind === 'withdrawal' ? 'withdrawal' : 'payment', args);
      const result = await runDepositResolution(parseDepositResolution(operation.kind === 'deposit' ? 'onramp' : 'offramp', args));
      return { resolved: result.resolved as boolean, status: String(result.status ?? (result.onRamp as { state?: string } | undefined)?.state ?? (result.offRamp as { state?: string } | undefined)?.state), detail: String(result.detail) };
    });
    counted(real, `resolution of a ${operation.kind}`);
    if (!parkedStates.has(parked)) {
      if (answer.resolved) fail(`resolving ${operation.kind} ${operation.id}, which ended ${parked}, not parked, changed it: ${JSON.stringify(answer)}`);
      countChecks('a resolution of an operation not parked changes nothing');
      return;
    }
    if (!answer.resolved || answer.status !== end) fail(`resolving ${operation.kind} ${operation.id} (${parked}) as ${as} answered ${JSON.stringify(answer)}; ${end} was due`);
    const after = await real.world.request('GET', operation.statusPath, organization.apiKey);
    if (after.body?.state !== end) fail(`${operation.kind} ${operation.id} resolved as ${as} reads ${after.status} ${JSON.stringify(after.body?.state)} at once, not ${end}`);
    operation.ends = [end];
    operation.resolvedFrom = parked;
    countChecks('a resolution ends a parked operation as it says');
    await ledgerHolds(organization.organizationId);
  }
  toString = () => `Resolve(#${this.pick}, ${this.second ? 'second' : 'first'} outcome)`;
}

/**
 * The commands, weighted like an integrator's day: mostly payments, some treasury, a few key, team
 * and webhook changes, and operators' resolutions. With `flood` (the kills phase), a quarter of the balance reads'
 * slot is instead 100 to 250 payments at once (with `bigBatches`, a third: those, or half as often a
 * funded batch of 300 to 1,000 items); without it the slots are as they were, so the seeds
 * of runs without floods still draw the same sequences.
 */
export function chaosCommands(organizations: number, options: { flood?: boolean; bigBatches?: boolean } = {}): fc.Arbitrary<Command>[] {
  const organization = fc.integer({ min: 0, max: organizations - 1 });
  const copies = fc.oneof({ weight: 6, arbitrary: fc.constant(1) }, { weight: 2, arbitrary: fc.constant(2) }, { weight: 1, arbitrary: fc.integer({ min: 3, max: 8 }) });
  // Mostly amounts that fit; now and then one no balance here covers.
  const whole = fc.oneof({ weight: 20, arbitrary: fc.integer({ min: 1, max: 400 }) }, { weight: 1, arbitrary: fc.constant(5_000_000) });
  // A batch item pays through the batch's one provider (1 USDC fixed fee and more on this corridor):
  // from 5 USDC an item covers it; an item that does not is refused with the batch (400), as the contract says.
  const item = fc.record({ whole: fc.integer({ min: 5, max: 200 }), cents: fc.constantFrom(...paymentCents) });
  return [
    fc.tuple(organization, whole, fc.constantFrom(...paymentCents), copies).map(([o, w, c, n]) => new Pay(o, w, c, n)),
    fc.tuple(organization, whole, fc.constantFrom(...paymentCents), copies).map(([o, w, c, n]) => new Pay(o, w, c, n)),
    fc.tuple(organization, whole, fc.constantFrom(...paymentCents), copies).map(([o, w, c, n]) => new Pay(o, w, c, n)),
    fc.tuple(organization, whole, fc.constantFrom(...paymentCents), copies).map(([o, w, c, n]) => new Pay(o, w, c, n)),
    fc.tuple(organization, whole, fc.constantFrom(...withdrawalCents), copies).map(([o, w, c, n]) => new Withdraw(o, w, c, n)),
    // Now and then a wire quoting no organization's reference, which an operator assigns.
    fc.oneof(
      { weight: 3, arbitrary: fc.tuple(organization, fc.integer({ min: 10, max: 2_000 }), fc.constantFrom(...depositCents)).map(([o, w, c]): Command => new WireDeposit(o, w, c)) },
      { weight: 1, arbitrary: fc.tuple(organization, fc.integer({ min: 10, max: 2_000 }), fc.constantFrom(...depositCents), fc.boolean(), fc.integer({ min: 0, max: 2 })).map(([o, w, c, named, repeats]): Command => new UnmatchedWire(o, w, c, named, repeats)) },
    ),
    fc.tuple(organization, fc.array(item, { minLength: 1, maxLength: 5 }), copies).map(([o, items, n]) => new Batch(o, items, n)),
    fc.tuple(organization, fc.integer({ min: 2, max: 12 }), fc.integer({ min: 500, max: 6_000 })).map(([o, n, w]) => new Burst(o, n, w)),
    fc.tuple(organization, fc.integer({ min: 10, max: 400 }), fc.constantFrom(...offRampCents), fc.constantFrom('EUR', 'GBP', 'USD'), fc.boolean(), copies).map(([o, w, c, currency, quoted, n]) => new OffRamp(o, w, c, currency, quoted, n)),
    // PIX and chain deposits share a slot, as key rotations and team changes do: payments stay the bulk of the mix.
    fc.oneof(
      fc.tuple(organization, fc.integer({ min: 10, max: 5_000 }), fc.constantFrom(...pixCents), copies).map(([o, w, c, n]): Command => new PixDeposit(o, w, c, n)),
      fc.tuple(organization, fc.constantFrom('base', 'base', 'polygon', 'ethereum', 'solana', 'tron'), fc.integer({ min: 0, max: 500 }), fc.integer({ min: 1, max: 99 }), fc.integer({ min: 1, max: 3 })).map(([o, network, w, c, n]): Command => new ChainDeposit(o, network, w, c, n)),
    ),
    fc.tuple(fc.nat(), fc.boolean()).map(([pick, second]) => new Resolve(pick, second)),
    fc.nat().map((pick) => new Replay(pick)),
    options.flood
      ? fc.oneof(
          { weight: options.bigBatches ? 6 : 3, arbitrary: organization.map((o): Command => new ReadBalance(o)) },
          { weight: options.bigBatches ? 2 : 1, arbitrary: fc.tuple(organization, fc.integer({ min: 100, max: 250 }), fc.shuffledSubarray([...paymentCents], { minLength: 1 })).map(([o, n, cents]): Command => new Flood(o, n, cents)) },
          // The contract's largest batches: hundreds of payments running when a kill comes (CHAOS_BIG_BATCHES=1).
          ...(options.bigBatches
            ? [{ weight: 1, arbitrary: fc.tuple(organization, fc.integer({ min: 300, max: 1_000 }), fc.shuffledSubarray([...paymentCents], { minLength: 1 })).map(([o, n, cents]): Command => new FundedBatch(o, n, cents)) }]
            : []),
        )
      : organization.map((o) => new ReadBalance(o)),
    fc.oneof(
      organization.map((o): Command => new RotateKey(o)),
      fc.tuple(organization, fc.constantFrom('admin', 'member', 'viewer')).map(([o, role]): Command => new MemberChange(o, role)),
      fc.tuple(organization, fc.shuffledSubarray<Role>(['admin', 'member', 'viewer'], { minLength: 2, maxLength: 2 })).map(([o, [from, to]]): Command => new MemberRoleChange(o, from!, to!)),
    ),
    // The webhook endpoint changed, and events sent again on request.
    fc.oneof(
      fc.tuple(organization, fc.constantFrom<WebhookChangeKind>('move', 'rotate', 'recreate'), fc.nat()).map(([o, how, pick]): Command => new WebhookChange(o, how, pick)),
      fc.tuple(organization, fc.nat()).map(([o, pick]): Command => new Redeliver(o, pick)),
    ),
  ];
}

export type { Operation };
