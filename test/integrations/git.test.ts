import { describe, expect, it } from "vitest";
import {
  allCommitters,
  commitsCommentActionMessage,
  commitsContent,
  isBranchNameNotifiable,
  issueEventMessage,
  pullRequestEventMessage,
  pushCommitsEventMessage,
  pushTagEventMessage,
  setupWebhookMessage,
  shortSha,
  type GitCommit,
} from "../../src/integrations/git.js";

const commit = (name: string, n: number): GitCommit => ({
  name,
  sha: `${n}`.padEnd(40, "f"),
  message: `Change ${n}\n\nThe body is not listed.`,
  url: `https://example.com/c/${n}`,
});

describe("git.ts, Zulip's git.py texts", () => {
  it("short sha, setup message, branch filter", () => {
    expect(shortSha("0123456789abcdef")).toBe("0123456789a");
    expect(setupWebhookMessage("GitHub")).toBe("GitHub webhook has been successfully configured.");
    expect(setupWebhookMessage("GitHub", "octocat")).toBe("GitHub webhook has been successfully configured by octocat.");
    expect(isBranchNameNotifiable("main", undefined)).toBe(true);
    expect(isBranchNameNotifiable("main", " dev , main")).toBe(true);
    expect(isBranchNameNotifiable("main", "dev")).toBe(false);
  });

  it("committers: most commits first, ties by name, the rest as others", () => {
    const commits = [commit("b", 1), commit("a", 2), commit("c", 3), commit("c", 4), commit("d", 5), commit("e", 6)];
    expect(allCommitters(commits)).toEqual([
      ["c", 2],
      ["a", 1],
      ["b", 1],
      ["others", 2],
    ]);
  });

  it("push messages", () => {
    expect(pushCommitsEventMessage({ userName: "u", compareUrl: "C", branchName: "main", commits: [commit("u", 1)] })).toBe(
      "u [pushed](C) 1 commit to branch main.\n\n* Change 1 ([1ffffffffff](https://example.com/c/1))",
    );
    expect(pushCommitsEventMessage({ userName: "u", compareUrl: null, branchName: "main", commits: [commit("a", 1), commit("b", 2), commit("c", 3)] })).toBe(
      "u pushed 3 commits to branch main. Commits by a (1), b (1) and c (1).\n\n" +
        "* Change 1 ([1ffffffffff](https://example.com/c/1))\n* Change 2 ([2ffffffffff](https://example.com/c/2))\n* Change 3 ([3ffffffffff](https://example.com/c/3))",
    );
    expect(pushCommitsEventMessage({ userName: "u", compareUrl: "C", branchName: "b", commits: [], deleted: true })).toBe("u [deleted](C) the branch b.");
    expect(pushCommitsEventMessage({ userName: "u", compareUrl: "C", branchName: "b", commits: [], forcePush: true })).toBe(
      "u [force pushed](C) the branch b.",
    );
    const many = Array.from({ length: 22 }, (_, i) => commit("u", i));
    expect(commitsContent(many).split("\n").at(-1)).toBe("[and 2 more commit(s)]");
    expect(
      commitsContent([commit("u", 1)], true)
        .split("\n")
        .at(-1),
    ).toBe("[and more commit(s)]");
    expect(pushTagEventMessage("u", "v1.0", "T")).toBe("u pushed tag [v1.0](T).");
    expect(pushTagEventMessage("u", "v1.0-", null, "removed")).toBe("u removed tag v1.0-");
  });

  it("pull request and issue messages", () => {
    expect(pullRequestEventMessage({ userName: "u", action: "opened", url: "U", number: 1, targetBranch: "f", baseBranch: "m", message: "Body" })).toBe(
      "u opened [PR #1](U) from `f` to `m`:\n\n~~~ quote\nBody\n~~~",
    );
    expect(pullRequestEventMessage({ userName: "u", action: "assigned", url: "U", number: 1, assigneeUpdated: "v", title: "Fix it!" })).toBe(
      "u assigned v to [PR #1 Fix it!](U)",
    );
    expect(issueEventMessage({ userName: "u", action: "opened", url: "U", number: 2, assignees: ["a", "b", "c"], title: "T" })).toBe(
      "u opened [issue #2 T](U) (assigned to a, b and c).",
    );
    expect(commitsCommentActionMessage("u", "commented", "U", "0123456789abcdef", "Nice")).toBe("u commented on [0123456789a](U):\n~~~ quote\nNice\n~~~");
  });
});
