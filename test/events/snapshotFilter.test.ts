import { describe, expect, it } from "vitest";
import { StateSnapshot } from "../../src/events/snapshotFilter.js";

/** PostgreSQL snapshot visibility (pg_visible_in_snapshot) as the register/commit race filter reads it. */
describe("StateSnapshot", () => {
  it("sees transactions before xmin and finished ones below xmax, not running or later ones", () => {
    const snapshot = StateSnapshot.parse("100:110:102,105");
    expect(snapshot.sees(99n)).toBe(true);
    expect(snapshot.sees(101n)).toBe(true);
    expect(snapshot.sees(102n)).toBe(false);
    expect(snapshot.sees(105n)).toBe(false);
    expect(snapshot.sees(109n)).toBe(true);
    expect(snapshot.sees(110n)).toBe(false);
    expect(snapshot.sees(2n ** 62n)).toBe(false);
  });

  it("reads a snapshot with no running transactions", () => {
    const snapshot = StateSnapshot.parse("879:879:");
    expect(snapshot.sees(878n)).toBe(true);
    expect(snapshot.sees(879n)).toBe(false);
  });
});
