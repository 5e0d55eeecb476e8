import { describe, expect, it } from "vitest";
import { expectError, expectSuccess, useTestServer, type Params } from "../support/testApp.js";
import { at } from "../support/at.js";
import { defined } from "../../src/util/defined.js";

// Editing and deleting a custom profile field (PATCH and DELETE /realm/profile_fields/{field_id},
// Zulip's update_realm_custom_profile_field and delete_realm_custom_profile_field).
const t = useTestServer();

async function field(id: number): Promise<any> {
  return expectSuccess(await t.get("hamlet", "/api/v1/realm/profile_fields")).custom_fields.find((f: any) => f.id === id);
}

async function createField(params: Params): Promise<number> {
  return expectSuccess(await t.post("iago", "/api/v1/realm/profile_fields", params)).id;
}

async function profileData(userId: number): Promise<Record<string, { value: string }>> {
  return expectSuccess(await t.get("hamlet", `/api/v1/users/${userId}`, { include_custom_profile_fields: true })).user.profile_data;
}

describe("PATCH /realm/profile_fields/{field_id}", () => {
  it("changes label, hint and flags, keeps the type, and tells the realm", async () => {
    const id = await createField({ name: "Room", hint: "Where", field_type: 1 });
    const { result, events } = await t.captureEvents(() =>
      t.patch("iago", `/api/v1/realm/profile_fields/${id}`, { name: " Office ", hint: "Building and room", required: true, editable_by_user: false }),
    );
    expectSuccess(result);
    expect(await field(id)).toMatchObject({ name: "Office", hint: "Building and room", type: 1, required: true, editable_by_user: false });
    expect(events.map((e) => e.event.type)).toEqual(["custom_profile_fields"]);
    expect((at(events, 0).event.fields as any[]).find((f) => f.id === id).name).toBe("Office");
  });

  it("replaces the choices of a choice field and forgets values of removed choices", async () => {
    const id = await createField({ name: "Shift", field_type: 3, field_data: { a: { text: "Day", order: "1" }, b: { text: "Night", order: "2" } } });
    expectSuccess(await t.patch("iago", "/api/v1/users/12", { profile_data: [{ id, value: "b" }] }));
    expectSuccess(await t.patch("iago", "/api/v1/users/10", { profile_data: [{ id, value: "a" }] }));
    const choices = { a: { text: "Day", order: "1" }, c: { text: "Evening", order: "2" } };
    expectSuccess(await t.patch("iago", `/api/v1/realm/profile_fields/${id}`, { field_data: choices }));
    expect(JSON.parse((await field(id)).field_data)).toEqual(choices);
    expect(await profileData(12)).not.toHaveProperty(String(id));
    expect(defined((await profileData(10))[id], "(await profileData(10))[id]").value).toBe("a");
  });

  it("refuses what Zulip refuses", async () => {
    const id = await createField({ name: "Nickname", field_type: 1 });
    await createField({ name: "Call sign", field_type: 1 });
    const listed = expectSuccess(await t.get("hamlet", "/api/v1/realm/profile_fields")).custom_fields as any[];
    const twitter =
      listed.find((f) => f.field_data === '{"subtype":"twitter"}')?.id ?? (await createField({ field_type: 7, field_data: { subtype: "twitter" } }));
    const bio = await createField({ name: "Bio", field_type: 2 });
    const patch = (fieldId: number | string, params: Params, who = "iago") => t.patch(who, `/api/v1/realm/profile_fields/${fieldId}`, params);
    expectError(await patch(id, { name: "  " }), 400, "Label cannot be blank.", "BAD_REQUEST");
    expectError(await patch(id, { name: "Call sign" }), 400, "A field with that label already exists.", "BAD_REQUEST");
    expectError(await patch(id, { hint: "x".repeat(81) }), 400, "hint is too long (limit: 80 characters)", "BAD_REQUEST");
    expectError(await patch(id, { field_data: { a: { text: "A", order: "1" } } }), 400, "Field type does not take field_data.", "BAD_REQUEST");
    expectError(await patch(twitter, { name: "Bird site" }), 400, "Default custom field cannot be updated.", "BAD_REQUEST");
    expectError(await patch(bio, { display_in_profile_summary: true }), 400, "Field type not supported for display in profile summary.", "BAD_REQUEST");
    expectError(await patch(999999, { name: "Ghost" }), 400, "Field id 999999 not found.", "BAD_REQUEST");
    expectError(await patch("abc", { name: "Ghost" }), 400, "field_id is not an integer", "BAD_REQUEST");
    expectError(await patch(id, { name: "Mine" }, "hamlet"), 400, "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    expect((await field(id)).name).toBe("Nickname");
  });
});

describe("DELETE /realm/profile_fields/{field_id}", () => {
  it("deletes the field with everyone's values, and tells the realm", async () => {
    const id = await createField({ name: "Locker", field_type: 1 });
    expectSuccess(await t.patch("iago", "/api/v1/users/12", { profile_data: [{ id, value: "42" }] }));
    expectError(await t.delete("hamlet", `/api/v1/realm/profile_fields/${id}`), 400, "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    const { result, events } = await t.captureEvents(() => t.delete("iago", `/api/v1/realm/profile_fields/${id}`));
    expectSuccess(result);
    expect(await field(id)).toBeUndefined();
    expect(await profileData(12)).not.toHaveProperty(String(id));
    expect((at(events, 0).event.fields as any[]).some((f) => f.id === id)).toBe(false);
    expectError(await t.delete("iago", `/api/v1/realm/profile_fields/${id}`), 400, `Field id ${id} not found.`, "BAD_REQUEST");
  });
});
