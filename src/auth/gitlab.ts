import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import * as z from "zod";
import type { AppContext } from "../appContext.js";
import { ICON_PATH, mountProviderIcon } from "./providerIcons.js";
import { type ExternalBackend, finishExternalLogin, refusal } from "./external.js";
import type { AuthSettings } from "./settings.js";
import { notOffered, withSlash, oauthConfiguration, type OAuthProvider, providerApiGet, sendToProvider, takeProviderAnswer } from "./socialOAuth.js";

/**
 * Sign-in with GitLab (Zulip's GitLabAuthBackend): OAuth 2 against gitlab.com or a self-hosted
 * GitLab (`url`), the person read from /api/v4/user. That answer's `email` is the account's
 * primary address; GitLab vouches for it only once it is confirmed (`confirmed_at` set), so an
 * account whose address is unconfirmed signs no one in.
 */

type GitLabSettings = NonNullable<AuthSettings["gitlab"]>;

const KEY = "gitlab";

function provider(settings: GitLabSettings): OAuthProvider {
  return {
    key: KEY,
    title: "GitLab",
    scopes: ["read_user"],
    openid: false,
    configuration: async () =>
      oauthConfiguration({ base: settings.url, authorize: "oauth/authorize", token: "oauth/token" }, settings.client_id, settings.client_secret),
  };
}

const gitlabUser = z.object({ email: z.string().nullish(), name: z.string().nullish(), confirmed_at: z.string().nullish() });

async function complete(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const settings = ctx.config.auth.gitlab;
  if (!settings) return notOffered(reply);
  const answer = await takeProviderAnswer(ctx, request, reply, provider(settings));
  if (!("tokens" in answer)) return answer;
  const res = await providerApiGet(answer, new URL("api/v4/user", withSlash(settings.url)).href);
  const user = res.status === 200 ? gitlabUser.safeParse(res.body).data : undefined;
  if (!user) return refusal(reply, 502, "Sign-in failed", "GitLab did not say who you are. Please try again later.");
  if (!user.email || !user.confirmed_at) {
    return refusal(reply, 403, "No verified email", "GitLab has not confirmed the email address of your account. Confirm it at GitLab, then sign in again.");
  }
  return finishExternalLogin(
    ctx,
    request,
    reply,
    { flow: answer.intent.flow, signup: answer.intent.signup, extra: {} },
    { method: "GitLab", email: user.email, fullName: user.name?.trim() || null },
  );
}

export const gitlabBackend: ExternalBackend = {
  method: "GitLab",
  key: KEY,
  entries: (settings) =>
    settings.gitlab
      ? [
          {
            name: KEY,
            display_name: settings.gitlab.display_name ?? "GitLab",
            display_icon: settings.gitlab.display_icon ?? ICON_PATH + "gitlab-icon.png",
            path: KEY,
          },
        ]
      : [],
  begin: async (ctx, request, reply, intent) =>
    ctx.config.auth.gitlab ? sendToProvider(ctx, request, reply, provider(ctx.config.auth.gitlab), intent) : notOffered(reply),
  mount(app: FastifyInstance, ctx: AppContext) {
    mountProviderIcon(app, "gitlab-icon.png");
    app.get("/complete/gitlab/", (request, reply) => complete(ctx, request, reply));
  },
};
