import { type CustomProfileField } from "../db/schema.js";

/** A field as clients see it (Zulip's CustomProfileField.as_dict). */
export function customProfileFieldDict(field: CustomProfileField): Record<string, unknown> {
  const dict: Record<string, unknown> = {
    id: field.id,
    name: field.name,
    type: field.field_type,
    hint: field.hint,
    field_data: field.field_data,
    order: field.order,
    required: field.required === 1,
    editable_by_user: field.editable_by_user === 1,
  };
  if (field.display_in_profile_summary) dict.display_in_profile_summary = true;
  return dict;
}
