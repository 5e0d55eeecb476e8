import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import * as z from "zod";
import type { AppContext } from "../appContext.js";
import { simplePage, sendHtml } from "../http/webApp.js";
import type { Realm } from "../db/schema.js";
import { realmOfRequest } from "../lib/realms.js";
import { userStore } from "../store/users.js";
import { escapeHtml } from "../util/html.js";
import { ICON_PATH, mountProviderIcon } from "./providerIcons.js";
import { type ExternalBackend, finishExternalLogin, refusal } from "./external.js";
import { bindFlowToBrowser, saveFlow, takeBrowserFlow, type LoginIntent } from "./flows.js";
import type { AuthSettings } from "./settings.js";
import {
  notOffered,
  withSlash,
  oauthConfiguration,
  type OAuthProvider,
  providerApiGet,
  type ProviderAnswer,
  sendToProvider,
  takeProviderAnswer,
} from "./socialOAuth.js";

/**
 * Sign-in with GitHub (Zulip's GitHubAuthBackend): OAuth 2 against github.com or GitHub
 * Enterprise, the person read from the REST API. Only an email address GitHub marks verified
 * signs anyone in; with several, the person picks one (Zulip's social_auth_select_email), from a
 * list kept here, not in the page. With `organization` or `team_id` set, GitHub must say the
 * person is a member of the organization, or an active member of the team.
 */

type GitHubSettings = NonNullable<AuthSettings["github"]>;

const KEY = "github";
/** The flow of a person choosing among their verified emails (src/auth/flows.ts backend name). */
const CHOOSE_EMAIL_FLOW = "github-email";
const CHOOSE_EMAIL_PATH = "/complete/github/email/";

function provider(settings: GitHubSettings): OAuthProvider {
  return {
    key: KEY,
    title: "GitHub",
    // user:email reads /user/emails; read:org sees private organization and team membership.
    scopes: settings.organization !== undefined || settings.team_id !== undefined ? ["user:email", "read:org"] : ["user:email"],
    openid: false,
    configuration: async () =>
      oauthConfiguration(
        { base: settings.url, authorize: "login/oauth/authorize", token: "login/oauth/access_token" },
        settings.client_id,
        settings.client_secret,
      ),
  };
}

/** A URL of GitHub's REST API (GitHub Enterprise's lives under /api/v3). */
function api(settings: GitHubSettings, path: string): string {
  return new URL(path, withSlash(settings.api_url)).href;
}

const githubUser = z.object({ login: z.string().min(1), name: z.string().nullish() });
const githubEmails = z.array(z.object({ email: z.string(), verified: z.boolean().nullish(), primary: z.boolean().nullish() }));

/** Why GitHub's answer signs no one in, or null when the membership rules are met. */
async function membershipRefusal(settings: GitHubSettings, answer: ProviderAnswer, login: string): Promise<string | null> {
  const user = encodeURIComponent(login);
  if (settings.team_id !== undefined) {
    const res = await providerApiGet(answer, api(settings, `teams/${settings.team_id}/memberships/${user}`));
    const state = res.status === 200 ? z.object({ state: z.string() }).safeParse(res.body).data?.state : undefined;
    if (state !== "active") return "You are not an active member of the GitHub team this organization requires.";
  }
  if (settings.organization !== undefined) {
    // 204: a member. 404 (or 302 to the public list, when the asker is not a member): not.
    const res = await providerApiGet(answer, api(settings, `orgs/${encodeURIComponent(settings.organization)}/members/${user}`));
    if (res.status !== 204) return `You are not a member of the GitHub organization ${settings.organization}, which this organization requires.`;
  }
  return null;
}

/**
 * The verified addresses, primary first (Zulip's get_verified_emails). GitHub's no-reply
 * addresses receive no mail: they serve only an account that already has one.
 */
async function verifiedEmails(ctx: AppContext, realm: Realm | undefined, answer: ProviderAnswer, settings: GitHubSettings): Promise<string[]> {
  const res = await providerApiGet(answer, api(settings, "user/emails"));
  const emails = res.status === 200 ? (githubEmails.safeParse(res.body).data ?? []) : [];
  const verified: string[] = [];
  for (const entry of emails) {
    if (entry.verified !== true) continue;
    if (entry.email.toLowerCase().endsWith("@users.noreply.github.com")) {
      const user = realm ? await userStore.getByEmail(ctx.db.kysely, realm.id, entry.email) : undefined;
      if (!user?.is_active) continue;
    }
    if (entry.primary === true) verified.unshift(entry.email);
    else verified.push(entry.email);
  }
  return verified;
}

/** The one address among several that has an active account here, if exactly one has. */
async function onlyExistingAccount(ctx: AppContext, realm: Realm | undefined, emails: string[]): Promise<string | null> {
  if (!realm) return null;
  const existing: string[] = [];
  for (const email of emails) {
    const user = await userStore.getByEmail(ctx.db.kysely, realm.id, email);
    if (user?.is_active && !user.is_bot) existing.push(email);
  }
  return existing.length === 1 ? (existing[0] ?? null) : null;
}

async function complete(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const settings = ctx.config.auth.github;
  if (!settings) return notOffered(reply);
  const answer = await takeProviderAnswer(ctx, request, reply, provider(settings));
  if (!("tokens" in answer)) return answer;
  const userRes = await providerApiGet(answer, api(settings, "user"));
  const user = userRes.status === 200 ? githubUser.safeParse(userRes.body).data : undefined;
  if (!user) return refusal(reply, 502, "Sign-in failed", "GitHub did not say who you are. Please try again later.");
  const notMember = await membershipRefusal(settings, answer, user.login);
  if (notMember) return refusal(reply, 403, "Not allowed", notMember);
  // Accounts of the organization of the host the provider sent the browser back to.
  const realm = await realmOfRequest(ctx, request);
  const emails = await verifiedEmails(ctx, realm, answer, settings);
  const fullName = user.name?.trim() || null;
  if (emails.length === 0) {
    return refusal(reply, 403, "No verified email", "Your GitHub account has no verified email address. Verify one at GitHub, then sign in again.");
  }
  const chosen = emails.length === 1 ? emails[0] : answer.intent.signup ? null : await onlyExistingAccount(ctx, realm, emails);
  if (chosen) return finishExternalLogin(ctx, request, reply, withoutExtra(answer.intent), { method: "GitHub", email: chosen, fullName });
  const flowId = await saveFlow(ctx, CHOOSE_EMAIL_FLOW, { ...withoutExtra(answer.intent), extra: { emails: JSON.stringify(emails), name: fullName ?? "" } });
  bindFlowToBrowser(ctx, reply, KEY, flowId);
  return sendHtml(reply, 200, chooseEmailPage(flowId, emails));
}

/** The choice posted from chooseEmailPage: one of the addresses kept with its flow, or refused. */
async function chooseEmail(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  if (!ctx.config.auth.github) return notOffered(reply);
  const body = (request.body ?? {}) as Record<string, unknown>;
  const intent = await takeBrowserFlow(ctx, request, reply, CHOOSE_EMAIL_FLOW, KEY, body.flow);
  if (!intent) return refusal(reply, 400, "Sign-in expired", "This GitHub sign-in is unknown, was already used, or has expired. Please start again.");
  const emails = JSON.parse(intent.extra.emails ?? "[]") as string[];
  const email = emails.find((candidate) => candidate === body.email);
  if (!email) return refusal(reply, 403, "Not a verified email", "That address is not one of the verified addresses of your GitHub account.");
  return finishExternalLogin(ctx, request, reply, withoutExtra(intent), { method: "GitHub", email, fullName: intent.extra.name || null });
}

function withoutExtra(intent: LoginIntent): LoginIntent {
  return { flow: intent.flow, signup: intent.signup, extra: {} };
}

function chooseEmailPage(flowId: string, emails: string[]): string {
  const buttons = emails
    .map((email, i) => `<li><button type="submit" name="email" value="${escapeHtml(email)}">${escapeHtml(email)}${i === 0 ? " (primary)" : ""}</button></li>`)
    .join("");
  return simplePage(
    "Choose an email",
    `<h1>Choose an email</h1><p>Your GitHub account has several verified email addresses. Which one do you sign in with?</p>` +
      `<form method="post" action="${CHOOSE_EMAIL_PATH}"><input type="hidden" name="flow" value="${escapeHtml(flowId)}"><ul class="choices">${buttons}</ul></form>` +
      `<p class="hint"><a href="/login/">Back to login</a></p>`,
  );
}

export const githubBackend: ExternalBackend = {
  method: "GitHub",
  key: KEY,
  entries: (settings) =>
    settings.github
      ? [
          {
            name: KEY,
            display_name: settings.github.display_name ?? "GitHub",
            display_icon: settings.github.display_icon ?? ICON_PATH + "github-icon.png",
            path: KEY,
          },
        ]
      : [],
  begin: async (ctx, request, reply, intent) =>
    ctx.config.auth.github ? sendToProvider(ctx, request, reply, provider(ctx.config.auth.github), intent) : notOffered(reply),
  mount(app: FastifyInstance, ctx: AppContext) {
    mountProviderIcon(app, "github-icon.png");
    app.get("/complete/github/", (request, reply) => complete(ctx, request, reply));
    app.post(CHOOSE_EMAIL_PATH, (request, reply) => chooseEmail(ctx, request, reply));
  },
};
