/**
 * What each operation does, in the contract's words, for the reference page (GET /docs): a sentence
 * or three beyond its summary, by operationId. The document adds what the route row already says
 * (permission, owner only, KYB, rate bucket, sandbox only: functions/contract/openapi.ts), so these
 * say only what the row cannot: what happens, whether a retry is safe, what to read next.
 * test/unit/openapi.test.ts holds every row to having one.
 */
export const operationDescriptions: Record<string, string> = {
  // Discovery
  getHealth: 'Whether the service can take payments. Reads only: `degraded` (503) means the workflow engine is unreachable, so nothing can start, while every read still works. No credential.',
  getCapabilities: 'The environment (`simulated`, `sandbox`, `production`), the corridors that can be paid and the status of every feature with its reason. Read it at startup and gate features and corridors on it: an unwired feature answers 501 `not_implemented`.',
  getMe: 'The organization and role behind the key sent; for a member key, also the member and its e-mail. Use it to check a key before storing it.',
  getOpenApi: 'This contract as an OpenAPI 3.1 document, generated from the same route table and schemas the service validates with. Generate a client from it; it is cacheable for five minutes.',
  getReference: 'This page: the OpenAPI document rendered for people. Everything it loads comes from the service itself.',
  getReferenceScript: "The script that renders this page, served by the service (no CDN), in the encoding the browser accepts, with an ETag.",

  // Quotes and payments
  createQuote: 'Prices a payment for a corridor and send amount: receive amount, fee, rate and the route, locked until `expiresAt` (about a minute). With an `idempotencyKey` the quote is bound to it, and only the payment with that key may use it. Nothing is held or charged.',
  createTransaction: 'Sends a payment: the send amount and fee are held from the balance at once and the payout runs in the background (202). The `idempotencyKey` becomes the transaction id: the same request sent again answers the same payment, never a second one; the same key with a different request is 409 `idempotency_key_reused`. Follow it with GET /transactions/{transactionId} or the `transaction.*` webhooks.',
  listTransactions: 'The organization\'s payments, newest first, one page at a time. Rows carry no state: read one with GET /transactions/{transactionId}.',
  getTransaction: 'A payment\'s state, timeline, amounts and fees. Poll while `running` is true, or wait for the webhook; IN_DOUBT and NEEDS_ATTENTION need a person.',

  // Batches
  createBatch: 'Pays up to 1,000 items on one rail, funded from the balance in one transfer; each item then runs as its own payment `<batchId>:<itemRef>`. The `batchId` is the idempotency key: resubmitting the same batch answers the same batch, a different batch under it is 409 `idempotency_key_conflict`. Takes one token of the `initiate` bucket per item.',
  listBatches: 'The organization\'s batches, newest first, with their counts.',
  getBatch: 'One batch: its funding, totals, counts per item state and a page of its items (`cursor`, `limit`).',

  // Balance and wallets
  getBalance: 'The organization\'s USDC as the ledger holds it: `available` to spend, `settling` (deposits not yet usable) and their total.',
  listWallets: 'The organization\'s wallet accounts (home wallet first), whole, with `count`; balances are read per wallet.',
  getWallet: 'One wallet account, by the service\'s id or the provider\'s externalId.',
  getWalletBalances: 'The wallet provider\'s own balance report for one wallet, per asset and network, as the provider answers it (not the ledger: GET /balance is what can be spent).',
  listIssuerAccounts: 'The organization\'s accounts held at stablecoin issuers, whole, with `count`.',
  listIssuers: 'Which issuers issue which stablecoins on which networks.',
  createWalletTransfer: 'Not offered on any environment: it answers 501 `not_implemented`. Send USDC out with POST /treasury/withdrawals.',
  mintAtIssuer: 'Not offered on any environment: it answers 501 `not_implemented`. USDC comes in through deposits (wire, PIX or on chain).',
  createWireTransfer: 'Not offered on any environment: it answers 501 `not_implemented`. Pay fiat out with an off-ramp (POST /treasury/offramp).',

  // Deposits
  getDepositInstructions: 'Where to wire USD or EUR to fund the balance, with the organization\'s one reference: a wire quoting it is credited to this organization.',
  getOnRampQuote: 'Prices a wire deposit: the USDC credited for a fiat amount, with the fee. Nothing is opened.',
  createOnRamp: 'Opens a wire deposit: the bank details and reference to pay, converted to USDC when the wire arrives (202). The `idempotencyKey` becomes the on-ramp id; a retry answers the same deposit.',
  listOnRamps: 'The organization\'s wire and PIX deposits, newest first.',
  getOnRamp: 'A wire or PIX deposit\'s state and amounts; `DELIVERED` when the USDC is credited.',
  getPixOnRampQuote: 'Prices a PIX (BRL) deposit. Nothing is opened.',
  createPixOnRamp: 'Opens a PIX deposit: a BR Code (copy-and-paste and QR) for the payer, converted to USDC when paid (202). The `idempotencyKey` becomes the on-ramp id; a retry answers the same code.',
  getCryptoDeposit: 'Where to send USDC on chain: the home wallet\'s address on the home network, and the networks whose deposits are moved home, with the fee of that move.',

  // Withdrawals and off-ramps
  getWithdrawalQuote: 'Prices a USDC withdrawal to a network: the network fee and what arrives. Nothing is held.',
  createWithdrawal: 'Sends USDC from the balance to an EVM address of the organization\'s own (202); the amount and fee are held at once. The `idempotencyKey` becomes the withdrawal id; a retry answers the same withdrawal.',
  listWithdrawals: 'The organization\'s withdrawals, newest first.',
  getWithdrawal: 'A withdrawal\'s state, amounts and, once confirmed on chain, its `txHash`.',
  createBeneficiary: 'Registers a bank account that off-ramps pay, screened on registration. No idempotency key: a retry registers it twice. Beneficiaries cannot be edited or deleted.',
  listBeneficiaries: 'The organization\'s registered off-ramp bank accounts, whole.',
  getOffRampQuote: 'Prices an off-ramp to a beneficiary and stores the quote: the fiat paid for a USDC amount, with the fee, usable once.',
  createOffRamp: 'Pays USDC out as fiat to a registered beneficiary at a quoted price (202); the USDC is held at once. The `idempotencyKey` becomes the off-ramp id; a retry answers the same off-ramp, and a quote serves one off-ramp only.',
  listOffRamps: 'The organization\'s off-ramps, newest first.',
  getOffRamp: 'An off-ramp\'s state and amounts; `PAID` when the fiat is sent.',

  // Recipients
  listRecipients: 'The organization\'s saved recipients, whole: wallets and bank accounts that batch items name by `recipientId`.',
  createRecipient: 'Saves a recipient (a wallet address or a bank account) for batch items to name. No idempotency key: a retry saves it twice.',
  updateRecipient: 'Changes a saved recipient\'s name or details.',
  deleteRecipient: 'Deletes a saved recipient; a batch item naming it afterwards is refused as `unknown_recipient`.',

  // Team and keys
  listMembers: 'The team: members and pending invitations, with their roles.',
  inviteMember: 'Invites someone by e-mail with a role below the caller\'s own: the e-mail carries a link whose token accepts the invitation once. Answers whether the e-mail went out.',
  resendInvitation: 'Sends a pending invitation again with a fresh link; the previous link stops working.',
  invitationPage: 'The page the invitation e-mail\'s link opens: the organization, the role and who invited, with one button to accept. A GET spends nothing, since link scanners follow links; a link that was used, expired, withdrawn, replaced by a re-send or never issued opens a page that says which (410).',
  acceptInvitation: 'Accepts an invitation with the token from its e-mailed link and answers the new member\'s API key, shown once. A used, expired, rescinded or replaced token is 400 `invalid_invite`, its message saying which. Posted as a form (the invitation page\'s button, token in the query), it answers a page showing the key once instead.',
  updateMember: 'Changes a member\'s role, never to `owner` nor above the caller\'s own.',
  removeMember: 'Removes a member, whose key stops at once, or rescinds an invitation not yet accepted.',
  rotateMemberKey: 'Issues the calling member a new key, shown once; the key that made the request stops at once.',
  rotateOrganizationKey: 'Issues a new organization key, shown once; the key that made the request stops at once. Member keys are unaffected.',

  // Webhooks and notifications
  getWebhookEndpoint: 'The registered endpoint, its event types, status and the end of its signing secret (`secretHint`); never the secret itself.',
  putWebhookEndpoint: 'Registers the one webhook endpoint or replaces it. The first registration and `rotateSecret: true` issue a signing secret, shown once in this answer; after a rotation the old secret keeps signing for 24 hours. Safe to repeat: the same body changes nothing more.',
  deleteWebhookEndpoint: 'Stops webhook delivery at once; deliveries in flight stop at their next attempt. Events are still kept and readable with GET /events.',
  listEvents: 'Events of the seven webhook types, newest first, kept 30 days; filter by `type`.',
  getEvent: 'One event as it was signed and delivered, with every delivery attempt: time, status, latency and the next attempt.',
  redeliverEvent: 'Sends the event once more now, with the same `webhook-id`, so a receiver that deduplicates on it acts on it once.',
  getNotificationPreferences: 'Which events are e-mailed to the calling member, and whether the member\'s address is verified.',
  putNotificationPreferences: 'Chooses which events are e-mailed to the calling member. Nothing is e-mailed until the address is verified (POST /notifications/verify/send). Repeating it changes nothing more.',
  sendEmailVerification: 'E-mails the calling member a verification link; a new link replaces the previous one.',
  verifyEmail: 'The page the verification link opens: it verifies the member\'s address and says so, or why not (410 for an unknown, replaced or expired link).',
  verifyEmailByForm: 'The same verification, posted as a form by the page.',
  unsubscribePage: 'The page the unsubscribe link opens: one button to confirm. A GET changes nothing, since link scanners follow links.',
  unsubscribe: 'One-click unsubscribe (RFC 8058), posted by a mail client or the page: removes the e-mail\'s event type from the member\'s preferences.',

  // Statements
  getStatement: 'Realized fees and volume for the half-open period `[from, to)`, line by line with totals; as CSV with `Accept: text/csv`.',

  // Sandbox
  simulateOnRampPayment: 'Pays an open PIX deposit as a simulated payer, so it proceeds to DELIVERED.',
  simulateWire: 'Posts an incoming wire quoting the organization\'s deposit reference, as a bank would: it is converted and credited like a real one (202).',
  getSandboxPrefill: 'Ready-to-send payments (corridor, amount, beneficiary), off-ramp beneficiaries and the outcome bands the simulated providers settle by. The values are not real.',
  topUpEurc: 'Credits a simulated EURC balance to a wallet.',
};
