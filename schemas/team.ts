import * as z from 'zod/mini';
import { schema } from './schema.ts';
import { PathId, Timestamp, plainText } from './common.ts';

export const Role = /* @__PURE__ */ schema(() => z.enum(['owner', 'admin', 'member', 'viewer']).check(
  z.meta({
    id: 'Role',
    description: '`owner` is the organization key and is never assigned to a member.',
  }),
));
export type Role = z.infer<typeof Role>;

/**
 * The contract types the requested role as a string. Refusing names that are not roles at all is
 * validation (400); a real role at or above the caller's own (including `owner`) is the handler's 403.
 */
const RequestedRole = /* @__PURE__ */ schema(() => Role.check(z.meta({ description: "Only a role below the caller's own may be granted; `owner` never." })));

/**
 * Values of a member's status are not shown by the contract. Ours: `invited` (invitation issued, not yet
 * accepted), `active` (accepted; holds a key), `removed` (removed, or invitation rescinded; key revoked).
 * A removed member is gone from GET /members: `removed` is seen only in the answer to DELETE.
 */
export const MemberStatus = /* @__PURE__ */ schema(() => z.enum(['invited', 'active', 'removed']).check(
  z.meta({
    id: 'MemberStatus',
    description:
      'Our choice (the contract does not show the values; docs/decisions/030 and 051): `invited` (the link is out, not yet ' +
      'accepted), `active` (accepted; holds a member key), `removed` (only in the answer to DELETE: removed or rescinded, key revoked).',
  }),
));
export type MemberStatus = z.infer<typeof MemberStatus>;

export const Member = /* @__PURE__ */ schema(() => z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.nullable(z.string()),
    role: Role,
    status: MemberStatus,
    invitedAt: z.nullable(Timestamp),
    acceptedAt: z.nullable(Timestamp),
    createdAt: Timestamp,
  })
  .check(z.meta({ id: 'Member', description: 'A team member.' })));
export type Member = z.infer<typeof Member>;

export const MemberList = /* @__PURE__ */ schema(() => z
  .object({ members: z.array(Member), count: z.number().check(z.int(), z.minimum(0)) })
  .check(z.meta({ id: 'MemberList' })));
export type MemberList = z.infer<typeof MemberList>;

/** POST /members/invitations: strict. */
export const InviteMemberBody = /* @__PURE__ */ schema(() => z
  .strictObject({
    email: z.email().check(z.maxLength(320)),
    name: z.optional(plainText(200)),
    role: RequestedRole,
  })
  .check(z.meta({ id: 'InviteMemberRequest' })));
export type InviteMemberBody = z.infer<typeof InviteMemberBody>;

/** 201 of POST /members/invitations and 200 of POST /members/{memberId}/invitations. */
export const InvitationResult = /* @__PURE__ */ schema(() => z
  .object({
    emailDelivered: z.boolean(),
    emailError: z.optional(z.string()),
    member: Member,
  })
  .check(z.meta({ id: 'InvitationResult' })));
export type InvitationResult = z.infer<typeof InvitationResult>;

/** The invitation token as the contract bounds it: 1 to 200 characters. */
const InvitationToken = /* @__PURE__ */ schema(() => z.string().check(z.minLength(1), z.maxLength(200)));

/** POST /invitations/accept: strict; the token is the credential. */
export const AcceptInvitationBody = /* @__PURE__ */ schema(() => z.strictObject({ token: InvitationToken }).check(z.meta({ id: 'AcceptInvitationRequest' })));
export type AcceptInvitationBody = z.infer<typeof AcceptInvitationBody>;

/** GET /invitations/accept?token=…: the e-mailed link. */
export const InvitationLinkQuery = /* @__PURE__ */ schema(() => z.object({
  token: InvitationToken.check(z.meta({ description: 'The credential of the e-mailed link, exactly as it is in the link.' })),
}));

/** POST /invitations/accept?token=… as the page's form posts it: the token is in the query (the page's own address) or a field. */
export const AcceptInvitationQuery = /* @__PURE__ */ schema(() => z.object({
  token: z
    .optional(InvitationToken)
    .check(z.meta({ description: "Only with the form: the link's token, as the page's form posts back to the page's own address." })),
}));

/** The invitation page's form: the button alone; a `token` field is read when the query has none, other fields are ignored. */
export const AcceptInvitationForm = /* @__PURE__ */ schema(() => z
  .object({ token: z.optional(InvitationToken) })
  .check(
    z.meta({ id: 'AcceptInvitationForm', description: "The invitation page's Accept button; the token is in the query, as in the link (or a `token` field)." }),
  ));

const ApiKeyShownOnce = /* @__PURE__ */ schema(() => z.string().check(z.meta({ description: 'Shown once; store it now.' })));

export const AcceptedInvitation = /* @__PURE__ */ schema(() => z.object({ apiKey: ApiKeyShownOnce, member: Member }).check(z.meta({ id: 'AcceptedInvitation' })));
export type AcceptedInvitation = z.infer<typeof AcceptedInvitation>;

/** PATCH /members/{memberId}: strict. */
export const UpdateMemberBody = /* @__PURE__ */ schema(() => z.strictObject({ role: RequestedRole }).check(z.meta({ id: 'UpdateMemberRequest' })));
export type UpdateMemberBody = z.infer<typeof UpdateMemberBody>;

export const UpdatedMember = /* @__PURE__ */ schema(() => z.object({ member: Member }).check(z.meta({ id: 'UpdatedMember' })));
export type UpdatedMember = z.infer<typeof UpdatedMember>;

export const RemovedMember = /* @__PURE__ */ schema(() => z
  .object({
    member: Member,
    rescinded: z.boolean().check(z.meta({ description: 'True when what was removed was an invitation not yet accepted.' })),
  })
  .check(z.meta({ id: 'RemovedMember' })));
export type RemovedMember = z.infer<typeof RemovedMember>;

export const RotatedMemberKey = /* @__PURE__ */ schema(() => z
  .object({ apiKey: ApiKeyShownOnce, member: Member, rotatedAt: Timestamp })
  .check(z.meta({ id: 'RotatedMemberKey', description: 'The previous member key stopped working.' })));
export type RotatedMemberKey = z.infer<typeof RotatedMemberKey>;

export const RotatedOrganizationKey = /* @__PURE__ */ schema(() => z
  .object({ apiKey: ApiKeyShownOnce, rotatedAt: Timestamp })
  .check(z.meta({ id: 'RotatedOrganizationKey', description: 'The key that made the request stopped working immediately.' })));
export type RotatedOrganizationKey = z.infer<typeof RotatedOrganizationKey>;

export const MemberParams = /* @__PURE__ */ schema(() => z.object({ memberId: PathId }));
export type MemberParams = z.infer<typeof MemberParams>;
