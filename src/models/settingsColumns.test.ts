import { describe, expect, it } from "vitest";
import { userSettings } from "./userSettings.js";
import { realmSettings } from "./realmSettings.js";

describe("settings columns are parsed with their schemas", () => {
  it("take stored overrides of the right type, and null", () => {
    expect(userSettings({ settings: '{"enter_sends":true}' }).enter_sends).toBe(true);
    expect(realmSettings({ settings: '{"message_content_edit_limit_seconds":null}' }).message_content_edit_limit_seconds).toBeNull();
  });

  it("refuse a damaged row, naming the column", () => {
    expect(() => userSettings({ settings: '{"enter_sends":"yes"}' })).toThrow(/users\.settings does not match its schema/);
    expect(() => userSettings({ settings: "{not json" })).toThrow(/users\.settings: the stored text is not JSON/);
    expect(() => realmSettings({ settings: '{"name_changes_disabled":3}' })).toThrow(/realms\.settings does not match its schema/);
  });
});
