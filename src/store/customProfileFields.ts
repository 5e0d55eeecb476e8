import type { Insertable, Updateable } from "kysely";
import type { CustomProfileField, CustomProfileFieldsTable } from "../db/schema.js";
import type { Executor } from "../db/tx.js";

export interface ProfileFieldValueRow {
  user_id: number;
  field_id: number;
  field_type: number;
  value: string;
  rendered_value: string | null;
}

export const customProfileFieldStore = {
  async listForRealm(q: Executor, realmId: number): Promise<CustomProfileField[]> {
    return q.selectFrom("custom_profile_fields").selectAll().where("realm_id", "=", realmId).orderBy("order").orderBy("id").execute();
  },

  async getById(q: Executor, realmId: number, id: number): Promise<CustomProfileField | undefined> {
    return q.selectFrom("custom_profile_fields").selectAll().where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
  },

  async nameExists(q: Executor, realmId: number, name: string): Promise<boolean> {
    const row = await q.selectFrom("custom_profile_fields").select("id").where("realm_id", "=", realmId).where("name", "=", name).executeTakeFirst();
    return row !== undefined;
  },

  async countDisplayedInSummary(q: Executor, realmId: number): Promise<number> {
    const row = await q
      .selectFrom("custom_profile_fields")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("realm_id", "=", realmId)
      .where("display_in_profile_summary", "=", 1)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  async setOrder(q: Executor, id: number, order: number): Promise<void> {
    await q.updateTable("custom_profile_fields").set({ order }).where("id", "=", id).execute();
  },

  async update(q: Executor, id: number, changes: Updateable<CustomProfileFieldsTable>): Promise<void> {
    await q.updateTable("custom_profile_fields").set(changes).where("id", "=", id).execute();
  },

  /** Deletes a field with everyone's values of it. */
  async delete(q: Executor, id: number): Promise<void> {
    await q.deleteFrom("custom_profile_field_values").where("field_id", "=", id).execute();
    await q.deleteFrom("custom_profile_fields").where("id", "=", id).execute();
  },

  /** Deletes the values of a field that are none of `kept` (choices removed from a choice field). */
  async deleteValuesNotIn(q: Executor, fieldId: number, kept: readonly string[]): Promise<void> {
    let query = q.deleteFrom("custom_profile_field_values").where("field_id", "=", fieldId);
    if (kept.length > 0) query = query.where("value", "not in", kept);
    await query.execute();
  },

  /** Inserts a field placed last: its `order` is its id, as in Zulip. */
  async insert(q: Executor, row: Insertable<CustomProfileFieldsTable>): Promise<CustomProfileField> {
    const field = await q.insertInto("custom_profile_fields").values(row).returningAll().executeTakeFirstOrThrow();
    await q.updateTable("custom_profile_fields").set({ order: field.id }).where("id", "=", field.id).execute();
    return { ...field, order: field.id };
  },

  /** Values of the realm's fields, for the given users (all users when `userIds` is null). */
  async listValues(q: Executor, realmId: number, userIds: readonly number[] | null): Promise<ProfileFieldValueRow[]> {
    if (userIds !== null && userIds.length === 0) return [];
    let query = q
      .selectFrom("custom_profile_field_values as v")
      .innerJoin("custom_profile_fields as f", "f.id", "v.field_id")
      .select(["v.user_id", "v.field_id", "f.field_type", "v.value", "v.rendered_value"])
      .where("f.realm_id", "=", realmId);
    if (userIds !== null) query = query.where("v.user_id", "in", userIds);
    return query.orderBy("v.user_id").orderBy("f.order").execute();
  },

  async getValue(q: Executor, userId: number, fieldId: number): Promise<{ value: string } | undefined> {
    return q.selectFrom("custom_profile_field_values").select("value").where("user_id", "=", userId).where("field_id", "=", fieldId).executeTakeFirst();
  },

  async upsertValue(q: Executor, userId: number, fieldId: number, value: string, renderedValue: string | null): Promise<void> {
    await q
      .insertInto("custom_profile_field_values")
      .values({ user_id: userId, field_id: fieldId, value, rendered_value: renderedValue })
      .onConflict((oc) => oc.columns(["user_id", "field_id"]).doUpdateSet({ value, rendered_value: renderedValue }))
      .execute();
  },

  /** A batch of short and long text values (the types rendered as Markdown), by id after `afterId`. */
  async listTextValuesAfter(
    q: Executor,
    textTypes: readonly number[],
    afterId: number,
    limit: number,
  ): Promise<Array<{ id: number; realm_id: number; value: string }>> {
    return q
      .selectFrom("custom_profile_field_values as v")
      .innerJoin("custom_profile_fields as f", "f.id", "v.field_id")
      .select(["v.id", "f.realm_id", "v.value"])
      .where("f.field_type", "in", [...textTypes])
      .where("v.id", ">", afterId)
      .orderBy("v.id")
      .limit(limit)
      .execute();
  },

  async setRenderedValue(q: Executor, id: number, renderedValue: string): Promise<void> {
    await q.updateTable("custom_profile_field_values").set({ rendered_value: renderedValue }).where("id", "=", id).execute();
  },

  /** Returns whether a value was deleted. */
  async deleteValue(q: Executor, userId: number, fieldId: number): Promise<boolean> {
    const result = await q.deleteFrom("custom_profile_field_values").where("user_id", "=", userId).where("field_id", "=", fieldId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  },
};
