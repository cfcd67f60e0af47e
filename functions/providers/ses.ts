// The SES client with only what the mail port calls, imported at the first message (docs/decisions/159,
// 161): a function that only asks whether mail is configured, finds the address suppressed or runs
// with the local outbox never loads it, and one that sends loads it beside its bundle when it does.
export { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
