// Types of scripts/zulip-export-fixture.mjs (used by tests).
export const REALM_ID: number;
export const STRING_ID: string;
export const FLAGS: Record<string, number>;
export interface ZulipExportOptions {
  users?: number;
  streams?: number;
  subscribers?: number;
  messages?: number;
  perFile?: number;
  reactionEvery?: number;
}
export interface ZulipExportFixture {
  botEmail: string;
  userIds: number[];
  streamIds: number[];
  messageIds: number[];
  huddleMembers: number[];
  avatarUser: number;
  uploadUrl: string;
  fileText: string;
  reactions: number;
  userMessages: number;
  messageFiles: number;
}
export function writeZulipExport(dir: string, opts?: ZulipExportOptions): ZulipExportFixture;
