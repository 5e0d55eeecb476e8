import type { Payload } from "../payload.js";
import { defineIntegration } from "../types.js";

const misconfiguredPayload = (botName: string, supportEmail: string) =>
  `Hi there! Your bot ${botName} just received a TeamCity payload in a
format that Zulip doesn't recognize. This usually indicates a
configuration issue in your TeamCity webhook settings. Please make sure
that you set the **Payload Format** option to **Legacy Webhook (JSON)**
in your TeamCity webhook configuration. Contact ${supportEmail} if you
need further help!`;

/** A build property's value (`teamcityProperties` is a list of {name, value}). */
function property(build: Payload, name: string): string | undefined {
  for (const prop of build.get("teamcityProperties").list()) {
    if (prop.get("name").str() === name) return prop.get("value").str();
  }
  return undefined;
}

function status(build: Payload, unsupported: (eventType: string) => Error): string {
  const result = build.get("buildResult").str();
  const delta = build.get("buildResultDelta").str();
  const buildStatus = build.get("buildStatus").str();
  if (result === "success") return delta === "fixed" ? "has been fixed! :thumbs_up:" : "was successful! :thumbs_up:";
  if (result === "failure")
    return delta === "broken" ? `is broken with status ${buildStatus}! :thumbs_down:` : `is still broken with status ${buildStatus}! :thumbs_down:`;
  if (result === "running") return "has started.";
  throw unsupported(result);
}

/**
 * Zulip's "teamcity" integration (the tcWebHooks plugin's legacy JSON format): a build's result
 * in a topic named for the build (and branch); a personal build's result goes as a direct
 * message to the Zulip user who started it, if one can be guessed, and nowhere otherwise.
 */
export default defineIntegration({
  name: "teamcity",
  // Zulip lists it under the name "teamcity".title(); its webhook view is named "TeamCity".
  displayName: "Teamcity",
  webhookName: "TeamCity",
  categories: ["continuous-integration"],
  setup:
    "Install the [tcWebHooks](https://github.com/tcplugins/tcWebHooks) plugin in TeamCity. In a project's " +
    "**WebHooks** tab, add a webhook with the URL as its URL and **Legacy Webhook (JSON)** as its payload format, " +
    "and pick the build events to be told of.",
  handle: async (hook) => {
    const { payload } = hook;
    if (!payload.has("build")) {
      await hook.notifyBotOwner(misconfiguredPayload(hook.bot.fullName, hook.supportEmail));
      return null;
    }
    const build = payload.get("build");
    const name = build.get("buildFullName").str();
    const logUrl = build.get("buildStatusUrl").str();
    const number = build.get("buildNumber").str();
    const body = `${name} build ${number} ${status(build, hook.unsupported)} See [changes](${logUrl}&tab=buildChangesDiv) and [build log](${logUrl}).`;
    const topic = build.has("branchDisplayName") ? `${name} (${build.get("branchDisplayName").str()})` : name;

    if (property(build, "env.BUILD_IS_PERSONAL") !== "true") return { topic, content: body };
    const fullName = build.get("triggeredBy").str().split(";")[0] ?? "";
    let userId = await hook.guessUser(fullName);
    if (userId === undefined) {
      const shortName = property(build, "teamcity.build.triggeredBy.username");
      if (shortName !== undefined) userId = await hook.guessUser(shortName);
    }
    // Nobody to tell: Zulip only logs it.
    if (userId === undefined) return null;
    return { topic, content: `Your personal build for ${body}`, directTo: userId };
  },
});
