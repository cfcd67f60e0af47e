/** Roles and the permission matrix of the contract (Authentication, point 6). */
export const roles = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof roles)[number];

export const permissionMatrix = {
  'beneficiary.manage': ['owner', 'admin', 'member'],
  'member.invite': ['owner', 'admin'],
  'member.manage': ['owner', 'admin'],
  'member.read': ['owner', 'admin'],
  'payment.initiate': ['owner', 'admin', 'member'],
  'recipient.manage': ['owner', 'admin', 'member'],
  'recipient.read': ['owner', 'admin', 'member', 'viewer'],
  'treasury.move': ['owner', 'admin', 'member'],
  'webhook.manage': ['owner', 'admin'],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof permissionMatrix;

export function roleHasPermission(role: Role, permission: Permission): boolean {
  return (permissionMatrix[permission] as readonly Role[]).includes(role);
}

/** Higher rank grants more; a caller may only grant roles strictly below its own. */
export const roleRank: Record<Role, number> = { owner: 3, admin: 2, member: 1, viewer: 0 };
