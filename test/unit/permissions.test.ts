import { describe, expect, it } from 'vitest';
import { permissionMatrix, roleHasPermission, roleRank, roles, type Permission } from '#domain/permissions.ts';

/** The contract's table (Authentication, point 6), transcribed: owner, admin, member, viewer. */
const contract: Record<Permission, [boolean, boolean, boolean, boolean]> = {
  'beneficiary.manage': [true, true, true, false],
  'member.invite': [true, true, false, false],
  'member.manage': [true, true, false, false],
  'member.read': [true, true, false, false],
  'payment.initiate': [true, true, true, false],
  'recipient.manage': [true, true, true, false],
  'recipient.read': [true, true, true, true],
  'treasury.move': [true, true, true, false],
  'webhook.manage': [true, true, false, false],
};

describe('the permission matrix', () => {
  it('has the contract\'s four roles, in rank order', () => {
    expect(roles).toEqual(['owner', 'admin', 'member', 'viewer']);
  });

  it('grants exactly what the contract\'s table grants, to each role', () => {
    expect(Object.keys(permissionMatrix).sort()).toEqual(Object.keys(contract).sort());
    for (const [permission, granted] of Object.entries(contract) as [Permission, boolean[]][]) {
      roles.forEach((role, column) => expect(roleHasPermission(role, permission), `${role} ${permission}`).toBe(granted[column]));
    }
  });

  it('ranks owner above admin above member above viewer', () => {
    expect(roleRank.owner).toBeGreaterThan(roleRank.admin);
    expect(roleRank.admin).toBeGreaterThan(roleRank.member);
    expect(roleRank.member).toBeGreaterThan(roleRank.viewer);
  });
});
