import { describe, expect, it } from "vitest";
import { expectError, expectSuccess, useTestServer } from "../support/testApp.js";

/** Code playgrounds (Zulip's RealmPlayground): where code blocks of a language can be opened. */
const t = useTestServer({ eventHeartbeatSeconds: 1 });

const add = (name: string, pygments_language: string, url_template: string, who = "iago") =>
  t.post(who, "/api/v1/realm/playgrounds", { name, pygments_language, url_template });

describe("/realm/playgrounds", () => {
  it("adds and removes playgrounds, with realm_playgrounds events and the /register section", async () => {
    const reg = expectSuccess(await t.post("hamlet", "/api/v1/register", { event_types: JSON.stringify(["realm_playgrounds"]) }));
    const python = expectSuccess(await add(" Python playground ", " Python ", "https://python.example.com?code={code}")).id;
    const rust = expectSuccess(await add("Rust playground", "Rust", "https://play.example.com/{?code}")).id;
    expectSuccess(await t.delete("iago", `/api/v1/realm/playgrounds/${python}`));
    const remaining = [{ id: rust, name: "Rust playground", pygments_language: "Rust", url_template: "https://play.example.com/{?code}" }];
    const { events } = expectSuccess(await t.get("hamlet", "/api/v1/events", { queue_id: reg.queue_id, last_event_id: "-1", dont_block: "true" }));
    expect(events.map((e: any) => e.realm_playgrounds.map((p: any) => p.name))).toEqual([
      ["Python playground"],
      ["Python playground", "Rust playground"],
      ["Rust playground"],
    ]);
    expect(events[0].realm_playgrounds[0]).toEqual({
      id: python,
      name: "Python playground",
      pygments_language: "Python",
      url_template: "https://python.example.com?code={code}",
    });
    const state = expectSuccess(await t.post("hamlet", "/api/v1/register", { fetch_event_types: JSON.stringify(["realm_playgrounds"]) }));
    expect(state.realm_playgrounds).toEqual(remaining);
    expectSuccess(await t.delete("iago", `/api/v1/realm/playgrounds/${rust}`));
  });

  it("is for administrators only, and validates as Zulip does", async () => {
    expectError(
      await add("Python", "Python", "https://python.example.com?code={code}", "hamlet"),
      400,
      "Must be an organization administrator",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expectError(await add("Python", "Py$thon", "https://python.example.com?code={code}"), 400, "Invalid characters in pygments language");
    expect(expectError(await add("Python", "Python", "https://python.example.com?code={code"), 400, "Invalid URL template.").errors).toEqual({
      url_template: ["Invalid URL template."],
    });
    expectError(
      await add("Python", "Python", "https://python.example.com?code={source}"),
      400,
      '"code" should be the only variable present in the URL template',
    );
    expectError(await add("Python", "Python", "https://python.example.com/"), 400, '"code" should be the only variable present in the URL template');
    expectError(await add("", "Python", "https://python.example.com?code={code}"), 400, "This field cannot be blank.");
    const id = expectSuccess(await add("Python", "Python", "https://python.example.com?code={code}")).id;
    expectError(
      await add("Python", "Python", "https://other.example.com?code={code}"),
      400,
      "Realm playground with this Realm, Pygments language and Name already exists.",
    );
    expectError(await t.delete("hamlet", `/api/v1/realm/playgrounds/${id}`), 400, "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    expectError(await t.delete("iago", "/api/v1/realm/playgrounds/999999"), 400, "Invalid playground");
    expectSuccess(await t.delete("iago", `/api/v1/realm/playgrounds/${id}`));
  });
});
