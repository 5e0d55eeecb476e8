import { camoUrl } from "./camo.js";
import { type Linkifier, linkifierPayload } from "./linkifiers.js";
import type { UrlEmbed } from "./markdown/types.js";
import type { Realm, User } from "../db/schema.js";
import type { Executor } from "../db/tx.js";
import { realmReadCache } from "../db/realmReadCache.js";
import { userSettings } from "../models/userSettings.js";
import type { Attachment } from "../store/attachments.js";
import { realmLinkifierStore } from "../store/realmLinkifiers.js";
import { renderLookupStore } from "../store/renderLookups.js";
import { userGroupStore } from "../store/userGroups.js";
import { collectReferences, type MentionableUser, type References, type RenderResult, renderMarkdown, type ResolvedReferences } from "./markdown/index.js";
import { AccessSubject, channelAccess } from "./streamAccess.js";
import { claimableAttachments } from "./uploadAccess.js";
import { pathIdFromLinkedPath } from "./uploadFiles.js";
import { defined } from "../util/defined.js";

/**
 * Renders a message at send time and reports what it mentions and contains. The only caller of
 * the Markdown renderer for messages: it resolves the names the content refers to (users,
 * groups, channels the sender may see, realm emoji) with one query per kind and renders.
 */
/**
 * The rendering, with the uploads the sender may claim; hasAttachment means "claims one" (Zulip).
 * `linkifiers`: the organization's, as rendered with (the message event's topic_links reuse them).
 */
export type RenderedMessage = RenderResult & { attachments: Attachment[]; linkifiers: Linkifier[] };

export async function renderMessageContent(
  q: Executor,
  realm: Realm,
  sender: User,
  content: string,
  options: { realmUrl?: string; urlEmbeds?: ReadonlyMap<string, UrlEmbed | null> } = {},
): Promise<RenderedMessage> {
  const refs = await resolveReferences(q, realm, sender, collectReferences(content));
  const linkifiers = await renderingLinkifiers(q, realm);
  const result = renderMarkdown(content, refs, {
    realmUrl: options.realmUrl,
    linkifiers,
    translateEmoticons: userSettings(sender).translate_emoticons,
    mediaProxy: camoUrl,
    urlEmbeds: options.urlEmbeds,
  });
  const attachments = await claimableAttachments(q, sender, result.linkedUploadPaths);
  return { ...(await withGroupMembersMentioned(q, result)), attachments, hasAttachment: attachments.length > 0, linkifiers };
}

/**
 * Zulip's mentions_user_ids.update(mention_data.get_group_members(...)): the members of a
 * mentioned group, through its subgroups, are mentioned too (the `mentioned` flag). Sending
 * checks that the sender may mention each group (checkUserGroupMentionAllowed).
 */
async function withGroupMembersMentioned<T extends RenderResult>(q: Executor, result: T): Promise<T> {
  if (result.mentionedGroupIds.size === 0) return result;
  const groupIds = await userGroupStore.withRecursiveSubgroups(q, [...result.mentionedGroupIds]);
  const members = await userGroupStore.activeMemberIdsOfGroups(q, [...groupIds]);
  return { ...result, mentionedUserIds: new Set([...result.mentionedUserIds, ...members]) };
}

/**
 * renderMessageContent for several contents from one sender (the Notification Bot's notices):
 * one look-up per kind for the names all of them refer to, each distinct content rendered once;
 * the renderings in the order of `contents`.
 */
export async function renderMessageContents(q: Executor, realm: Realm, sender: User, contents: readonly string[]): Promise<RenderedMessage[]> {
  const distinct = [...new Set(contents)];
  if (distinct.length === 0) return [];
  // A name one content wants finds every user, group, channel and emoji of that name; the others'
  // names add entries the content never asks for, so each renders as it would alone.
  const refs = await resolveReferences(q, realm, sender, mergeReferences(distinct.map(collectReferences)));
  const results: RenderResult[] = [];
  const linkifiers = await renderingLinkifiers(q, realm);
  for (const content of distinct) {
    results.push(
      await withGroupMembersMentioned(
        q,
        renderMarkdown(content, refs, { translateEmoticons: userSettings(sender).translate_emoticons, mediaProxy: camoUrl, linkifiers }),
      ),
    );
  }
  const claimable = await claimableAttachments(
    q,
    sender,
    results.flatMap((r) => r.linkedUploadPaths),
  );
  const rendered = new Map(
    distinct.map((content, i) => {
      const result = defined(results[i], "the rendering of a distinct content");
      const own = new Set(result.linkedUploadPaths.map(pathIdFromLinkedPath));
      const attachments = claimable.filter((a) => own.has(a.path_id));
      return [content, { ...result, attachments, hasAttachment: attachments.length > 0, linkifiers }];
    }),
  );
  return contents.map((content) => defined(rendered.get(content), "the rendering of a content"));
}

/**
 * Zulip's render_stream_description: a channel description through the Markdown processor.
 * Channel links resolve to the channels `author` may see; with no author (a channel the server
 * creates) they stay text.
 */
export async function renderChannelDescription(q: Executor, realm: Pick<Realm, "id">, author: User | null, text: string): Promise<string> {
  if (text === "") return "";
  const wanted = collectReferences(text);
  const refs = await resolveReferences(q, realm, author, author ? wanted : { ...wanted, streamNames: [] });
  return renderMarkdown(text, refs, { mediaProxy: camoUrl, linkifiers: await realmLinkifiers(q, realm) }).html;
}

/** The organization's linkifiers, in the order the renderer applies them. */
export async function realmLinkifiers(q: Executor, realm: Pick<Realm, "id">): Promise<Linkifier[]> {
  return (await realmLinkifierStore.listForRealm(q, realm.id)).map(linkifierPayload);
}

/**
 * realmLinkifiers for rendering a message, from memory (db/realmReadCache.ts: dropped by every
 * realm_linkifiers event). Not for POST /register or the linkifier actions, which read the table.
 */
async function renderingLinkifiers(q: Executor, realm: Pick<Realm, "id">): Promise<Linkifier[]> {
  return realmReadCache(q).get("realm_linkifiers", realm.id, () => realmLinkifiers(q, realm));
}

async function resolveReferences(q: Executor, realm: Pick<Realm, "id">, sender: User | null, wanted: References): Promise<ResolvedReferences> {
  const [users, groups, streams, emoji] = await Promise.all([
    renderLookupStore.activeUsers(q, realm.id, wanted.userIds, wanted.userNames),
    renderLookupStore.namedGroups(q, realm.id, wanted.groupNames),
    renderLookupStore.streams(q, realm.id, wanted.streamNames),
    renderLookupStore.realmEmoji(q, realm.id, wanted.emojiNames),
  ]);

  const usersByName = new Map<string, MentionableUser>();
  const ambiguous = new Set<string>();
  for (const user of users) {
    const key = user.full_name.toLowerCase();
    if (usersByName.has(key)) ambiguous.add(key);
    usersByName.set(key, user);
  }
  for (const key of ambiguous) usersByName.delete(key);

  // Channel links only to channels the sender may see: never reveal a private channel's id.
  const subject = sender && new AccessSubject(sender);
  const streamsByName = new Map<string, { id: number; name: string }>();
  for (const stream of streams) {
    if (subject && (await channelAccess(q, subject, stream)).canSeeMetadata) streamsByName.set(stream.name.toLowerCase(), { id: stream.id, name: stream.name });
  }

  return {
    usersByName,
    usersById: new Map(users.map((u) => [u.id, u])),
    groupsByName: new Map(groups.map((g) => [g.name!.toLowerCase(), { id: g.id, name: g.name! }])),
    streamsByName,
    realmEmoji: new Map(
      emoji.map((e) => [
        e.name,
        { id: e.id, name: e.name, source_url: `/user_avatars/${realm.id}/emoji/images/${e.file_name ?? e.id}`, deactivated: e.deactivated === 1 },
      ]),
    ),
  };
}

function mergeReferences(all: ReadonlyArray<References>): References {
  const union = <T>(pick: (r: References) => readonly T[]) => [...new Set(all.flatMap(pick))];
  return {
    userNames: union((r) => r.userNames),
    userIds: union((r) => r.userIds),
    groupNames: union((r) => r.groupNames),
    streamNames: union((r) => r.streamNames),
    emojiNames: union((r) => r.emojiNames),
  };
}

/** Zulip's Message.is_status_message: "/me did something". */
export function isMeMessage(content: string): boolean {
  return content.startsWith("/me ");
}
