import { describe, expect, it } from "vitest";
import { expectError, expectSuccess, useTestServer, type Params } from "../support/testApp.js";
import { at } from "../support/at.js";

const t = useTestServer();

async function fields(): Promise<any[]> {
  return expectSuccess(await t.get("hamlet", "/api/v1/realm/profile_fields")).custom_fields;
}

async function createField(params: Params): Promise<number> {
  return expectSuccess(await t.post("iago", "/api/v1/realm/profile_fields", params)).id;
}

describe("GET /realm/profile_fields", () => {
  it("requires authentication", async () => {
    expectError(await t.get(null, "/api/v1/realm/profile_fields"), 401, "Not logged in: API authentication or user session required", "UNAUTHORIZED");
  });
});

describe("POST /realm/profile_fields", () => {
  it("creates a field, lists it last and tells the realm", async () => {
    const { result: res, events } = await t.captureEvents(() =>
      t.post("iago", "/api/v1/realm/profile_fields", { name: " Desk phone ", hint: "Work phone", field_type: 1, required: true }),
    );
    const id = expectSuccess(res).id;
    const listed = await fields();
    expect(listed[listed.length - 1]).toEqual({
      id,
      name: "Desk phone",
      type: 1,
      hint: "Work phone",
      field_data: "",
      order: id,
      required: true,
      editable_by_user: true,
    });
    expect(events).toHaveLength(1);
    expect(at(events, 0).event).toMatchObject({ type: "custom_profile_fields" });
    expect((at(events, 0).event.fields as any[]).map((f) => f.id)).toContain(id);
  });

  it("stores the choices of a select field as JSON text", async () => {
    const choices = { vim: { text: "Vim", order: "1" }, emacs: { text: "Emacs", order: "2" } };
    const id = await createField({ name: "Editor", field_type: 3, field_data: choices, editable_by_user: false });
    const field = (await fields()).find((f) => f.id === id);
    expect(JSON.parse(field.field_data)).toEqual(choices);
    expect(field.editable_by_user).toBe(false);
  });

  it("fills in a default external account", async () => {
    const id = await createField({ field_type: 7, field_data: { subtype: "twitter" } });
    expect((await fields()).find((f) => f.id === id)).toMatchObject({ name: "Twitter username", hint: "", field_data: '{"subtype":"twitter"}' });
  });

  it("accepts a custom external account with a URL pattern", async () => {
    const data = { subtype: "custom", url_pattern: "https://example.com/u/%(username)s" };
    const id = await createField({ name: "Example account", field_type: 7, field_data: data });
    expect(JSON.parse((await fields()).find((f) => f.id === id).field_data)).toEqual(data);
  });

  it("limits display_in_profile_summary to two fields and to suitable types", async () => {
    expectError(
      await t.post("iago", "/api/v1/realm/profile_fields", { name: "Bio", field_type: 2, display_in_profile_summary: true }),
      400,
      "Field type not supported for display in profile summary.",
    );
    const shown = (await fields()).filter((f) => f.display_in_profile_summary).length;
    for (let i = shown; i < 2; i++) {
      const id = await createField({ name: `Summary ${i}`, field_type: 1, display_in_profile_summary: true });
      expect((await fields()).find((f) => f.id === id).display_in_profile_summary).toBe(true);
    }
    expectError(
      await t.post("iago", "/api/v1/realm/profile_fields", { name: "One too many", field_type: 1, display_in_profile_summary: true }),
      400,
      "Only 2 custom profile fields can be displayed in the profile summary.",
    );
  });

  it("requires an administrator", async () => {
    expectError(
      await t.post("hamlet", "/api/v1/realm/profile_fields", { name: "X", field_type: 1 }),
      400,
      "Must be an organization administrator",
      "UNAUTHORIZED_PRINCIPAL",
    );
  });

  it("rejects bad parameters with Zulip's texts and creates nothing", async () => {
    const before = (await fields()).length;
    const bad: Array<[Params, string]> = [
      [{ name: "X" }, "Missing 'field_type' argument"],
      [{ name: "X", field_type: 99 }, "Invalid field type."],
      [{ name: "X", field_type: "one" }, "field_type is not valid JSON"],
      [{ name: "  ", field_type: 1 }, "Label cannot be blank."],
      [{ name: "x".repeat(41), field_type: 1 }, "name is too long (limit: 40 characters)"],
      [{ name: "X", hint: "h".repeat(81), field_type: 1 }, "hint is too long (limit: 80 characters)"],
      [{ name: "Phone number", field_type: 1 }, "A field with that label already exists."],
      [{ name: "Choice", field_type: 3 }, "Field must have at least one choice."],
      [{ name: "Choice", field_type: 3, field_data: { a: { text: "A", order: "1" }, b: { text: "A", order: "2" } } }, "Field must not have duplicate choices."],
      [{ name: "Choice", field_type: 3, field_data: { a: { order: "1" } } }, 'text key is missing from field_data["a"]'],
      [{ name: "Choice", field_type: 3, field_data: [] }, "field_data is not a dict"],
      [{ name: "Acct", field_type: 7, field_data: { subtype: "myspace" } }, "Invalid external account type"],
      [{ name: "Acct", field_type: 7, field_data: { subtype: "custom" } }, "Custom external account must define URL pattern"],
      [{ name: "Acct", field_type: 7, field_data: { subtype: "custom", url_pattern: "https://x.com/" } }, "URL pattern must contain '%(username)s'."],
    ];
    for (const [params, msg] of bad) {
      expectError(
        await t.post("iago", "/api/v1/realm/profile_fields", params),
        400,
        msg,
        msg.startsWith("Missing") ? "REQUEST_VARIABLE_MISSING" : "BAD_REQUEST",
      );
    }
    expect((await fields()).length).toBe(before);
  });
});

describe("profile_data through PATCH /users/{user_id}", () => {
  it("sets values, renders Markdown-capable ones, and shows them in user payloads", async () => {
    const text = await createField({ name: "Motto", field_type: 1 });
    const select = await createField({ name: "Team", field_type: 3, field_data: { red: { text: "Red", order: "1" } } });
    const person = await createField({ name: "Adviser", field_type: 6 });
    const date = await createField({ name: "Start date", field_type: 4 });
    const { result: res, events } = await t.captureEvents(() =>
      t.patch("iago", "/api/v1/users/12", {
        profile_data: [
          { id: text, value: "To be <b>" },
          { id: select, value: "red" },
          { id: person, value: [10] },
          { id: date, value: "1900-01-31" },
        ],
      }),
    );
    expectSuccess(res);
    expect(events.map((e) => e.event)).toContainEqual({
      type: "realm_user",
      op: "update",
      person: { user_id: 12, custom_profile_field: { id: text, value: "To be <b>", rendered_value: "<p>To be &lt;b&gt;</p>" } },
    });
    const user = expectSuccess(await t.get("hamlet", "/api/v1/users/12", { include_custom_profile_fields: true })).user;
    expect(user.profile_data).toEqual({
      [text]: { value: "To be <b>", rendered_value: "<p>To be &lt;b&gt;</p>" },
      [select]: { value: "red" },
      [person]: { value: "[10]" },
      [date]: { value: "1900-01-31" },
    });
    expect(expectSuccess(await t.get("othello", "/api/v1/users/me")).profile_data[text].value).toBe("To be <b>");

    const { events: removed } = await t.captureEvents(async () =>
      expectSuccess(await t.patch("iago", "/api/v1/users/12", { profile_data: [{ id: text, value: null }] })),
    );
    expect(removed.map((e) => e.event)).toEqual([
      { type: "realm_user", op: "update", person: { user_id: 12, custom_profile_field: { id: text, value: null } } },
    ]);
    const after = expectSuccess(await t.get("hamlet", "/api/v1/users/12", { include_custom_profile_fields: true })).user;
    expect(after.profile_data).not.toHaveProperty(String(text));
  });

  it("renders short and long text values as Markdown (rendered_value), in events, /register and GET /users", async () => {
    const about = await createField({ name: "About me", field_type: 2 });
    const tagline = await createField({ name: "Tagline", field_type: 1 });
    const site = await createField({ name: "Site", field_type: 5 });
    const markdown = "**bold** and a [link](https://example.com)\n\n<script>alert(1)</script>";
    const rendered = '<p><strong>bold</strong> and a <a href="https://example.com">link</a></p>\n<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>';
    const { result: res, events } = await t.captureEvents(() =>
      t.patch("iago", "/api/v1/users/12", {
        profile_data: [
          { id: about, value: markdown },
          { id: tagline, value: "*to be*" },
          { id: site, value: "https://example.com/*x*" },
        ],
      }),
    );
    expectSuccess(res);
    const updates = events.map((e) => (e.event as any).person?.custom_profile_field).filter(Boolean);
    expect(updates).toEqual([
      { id: about, value: markdown, rendered_value: rendered },
      { id: tagline, value: "*to be*", rendered_value: "<p><em>to be</em></p>" },
      { id: site, value: "https://example.com/*x*" },
    ]);
    const expected = {
      [about]: { value: markdown, rendered_value: rendered },
      [tagline]: { value: "*to be*", rendered_value: "<p><em>to be</em></p>" },
      [site]: { value: "https://example.com/*x*" },
    };
    const pick = (data: Record<string, unknown>) => ({ [about]: data[about], [tagline]: data[tagline], [site]: data[site] });
    const one = expectSuccess(await t.get("othello", "/api/v1/users/12", { include_custom_profile_fields: true })).user;
    expect(pick(one.profile_data)).toEqual(expected);
    const all = expectSuccess(await t.get("othello", "/api/v1/users", { include_custom_profile_fields: true })).members;
    expect(pick(all.find((u: any) => u.user_id === 12).profile_data)).toEqual(expected);
    const registered = expectSuccess(await t.post("othello", "/api/v1/register", { fetch_event_types: ["realm_user"] })).realm_users;
    expect(pick(registered.find((u: any) => u.user_id === 12).profile_data)).toEqual(expected);
  });

  it("renders again, after the upgrade, the text values an older version stored escaped (migration 2026-11-28T2200's job)", async () => {
    const about = await createField({ name: "Old about", field_type: 2 });
    const markdown = "**bold** and *that*";
    expectSuccess(await t.patch("iago", "/api/v1/users/12", { profile_data: [{ id: about, value: markdown }] }));
    // As the version before stored it: the text escaped into one paragraph.
    const q = t.ctx.db.kysely;
    await q
      .updateTable("custom_profile_field_values")
      .set({ rendered_value: `<p>${markdown}</p>` })
      .where("field_id", "=", about)
      .execute();
    const now = Math.floor(Date.now() / 1000);
    await q
      .deleteFrom("parley_migrations" as any)
      .where("name", ">=", "2026-11-28T2200-render-profile-field-values")
      .execute();
    const { migrateToLatest } = await import("../../src/db/migrate.js");
    // That migration and every later one (migrations apply in name order) run again.
    expect((await migrateToLatest(q, t.ctx.db.dialect))[0]).toBe("2026-11-28T2200-render-profile-field-values");
    const queued = await q.selectFrom("jobs").select(["id", "run_at"]).where("kind", "=", "render_profile_field_values").execute();
    expect(queued).toHaveLength(1);
    expect(queued[0]!.run_at).toBeGreaterThanOrEqual(now);
    await t.drainJobs();
    const user = expectSuccess(await t.get("othello", "/api/v1/users/12", { include_custom_profile_fields: true })).user;
    expect(user.profile_data[about]).toEqual({ value: markdown, rendered_value: "<p><strong>bold</strong> and <em>that</em></p>" });
  });

  it("validates each value by field type and writes nothing on error", async () => {
    const text = await createField({ name: "Short", field_type: 1 });
    const url = await createField({ name: "Website", field_type: 5 });
    const select = await createField({ name: "Color", field_type: 3, field_data: { blue: { text: "Blue", order: "1" } } });
    const person = await createField({ name: "Buddy", field_type: 6 });
    const date = await createField({ name: "Anniversary", field_type: 4 });
    const cases: Array<[unknown, string]> = [
      [{ id: text, value: "x".repeat(51) }, "Short is too long (limit: 50 characters)"],
      [{ id: text, value: [1] }, "Short is not a string"],
      [{ id: url, value: "not a url" }, "Website is not a URL"],
      [{ id: select, value: "green" }, "'green' is not a valid choice for 'Color'."],
      [{ id: person, value: [9999] }, "Invalid user ID: 9999"],
      [{ id: person, value: "10" }, "User IDs is not a list"],
      [{ id: date, value: "1900-02-31" }, "Anniversary is not a date"],
    ];
    for (const [entry, msg] of cases) {
      expectError(await t.patch("iago", "/api/v1/users/14", { profile_data: [{ id: text, value: "kept?" }, entry] }), 400, msg);
    }
    const user = expectSuccess(await t.get("hamlet", "/api/v1/users/14", { include_custom_profile_fields: true })).user;
    expect(user.profile_data).toEqual({});
  });
});

describe("PATCH /realm/profile_fields", () => {
  it("reorders the fields by position in `order` and tells the realm", async () => {
    const a = await createField({ name: "Reorder A", field_type: 1 });
    const b = await createField({ name: "Reorder B", field_type: 1 });
    const ids = (await fields()).map((f) => f.id);
    const wanted = [b, ...ids.filter((id) => id !== a && id !== b), a];
    const { result: res, events } = await t.captureEvents(() =>
      t.patch("iago", "/api/v1/realm/profile_fields", { order: JSON.stringify([...wanted, 999999]) }),
    );
    expectSuccess(res);
    const listed = await fields();
    expect(listed.map((f) => f.id)).toEqual(wanted);
    expect(listed.map((f) => f.order)).toEqual(wanted.map((_, i) => i));
    expect(events.map((e) => e.event.type)).toEqual(["custom_profile_fields"]);
    expect((at(events, 0).event.fields as any[]).map((f) => f.id)).toEqual(wanted);
  });

  it("needs every field in the order, and an administrator", async () => {
    const ids = (await fields()).map((f) => f.id);
    expectError(await t.patch("iago", "/api/v1/realm/profile_fields", { order: JSON.stringify(ids.slice(1)) }), 400, "Invalid order mapping.");
    expectError(
      await t.patch("hamlet", "/api/v1/realm/profile_fields", { order: JSON.stringify(ids) }),
      400,
      "Must be an organization administrator",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expectError(await t.patch("iago", "/api/v1/realm/profile_fields", {}), 400, "Missing 'order' argument", "REQUEST_VARIABLE_MISSING");
    expect((await fields()).map((f) => f.id)).toEqual(ids);
  });
});
