import type { MultiuseInviteResponse } from "../../../src/contract/responses.js";
import { Role } from "../../../src/contract/constants.js";
import { useState } from "preact/hooks";
import { closeOverlay } from "../overlay.js";
import { api } from "../api.js";
import { subscriptions } from "../state.js";
import { SelectField } from "./forms.js";
import "./settings.css";

/** Zulip's invite_as values, and the choices of "Invitation expires after" in minutes (null: never). */
const ROLES: Array<[number, string]> = [
  [Role.GUEST, "Guests"],
  [Role.MEMBER, "Members"],
  [Role.MODERATOR, "Moderators"],
  [Role.ADMINISTRATOR, "Organization administrators"],
  [Role.OWNER, "Organization owners"],
];
const EXPIRY: Array<[string, string]> = [
  ["1440", "1 day"],
  ["14400", "10 days"],
  ["43200", "30 days"],
  ["null", "Never expires"],
];

/**
 * The invitation overlay (#invite): invite people by email, or make a reusable link, with their
 * role and first channels (POST /json/invites, POST /json/invites/multiuse). The server decides
 * who may invite and as what; its refusal is shown as it words it.
 */
export function Invite() {
  const [emails, setEmails] = useState("");
  const [inviteAs, setInviteAs] = useState(400);
  const [expiry, setExpiry] = useState("14400");
  const [channels, setChannels] = useState<Set<number>>(new Set());
  const [result, setResult] = useState<{ text: string; error: boolean } | null>(null);
  const [link, setLink] = useState("");
  const params = () => ({
    invite_as: inviteAs,
    invite_expires_in_minutes: expiry === "null" ? "null" : Number(expiry),
    stream_ids: [...channels],
  });
  const run = async (action: () => Promise<void>) => {
    setResult(null);
    try {
      await action();
    } catch (error) {
      setResult({ text: (error as Error).message, error: true });
    }
  };
  const subs = [...subscriptions.value.values()].sort((a, b) => a.name.localeCompare(b.name));
  return (
    <div class="settings-overlay" role="dialog" aria-label="Invite users to organization">
      <div class="settings invite">
        <header>
          <h1>Invite users to organization</h1>
          <button type="button" class="close" aria-label="Close" onClick={() => closeOverlay()}>
            ✕
          </button>
        </header>
        <section class="settings-section">
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void run(async () => {
                await api.once.post("/invites", { invitee_emails: emails, include_realm_default_subscriptions: false, ...params() });
                setEmails("");
                setResult({ text: "Invitations sent.", error: false });
              });
            }}
          >
            <label class="field wide">
              <span>Emails (one or more, separated by commas or lines)</span>
              <textarea name="invitee_emails" rows={3} value={emails} onInput={(e) => setEmails(e.currentTarget.value)} />
            </label>
            <SelectField name="invite_as" label="Users join as" value={inviteAs} options={ROLES} onSave={(v) => setInviteAs(Number(v))} />
            <SelectField
              name="invite_expires_in_minutes"
              label="Invitation expires after"
              value={expiry}
              options={EXPIRY}
              onSave={(v) => setExpiry(String(v))}
            />
            <fieldset>
              <legend>Channels they should join</legend>
              {subs.map((s) => (
                <label class="check" key={s.stream_id}>
                  <input
                    type="checkbox"
                    name="stream"
                    value={String(s.stream_id)}
                    checked={channels.has(s.stream_id)}
                    onChange={(e) => {
                      const next = new Set(channels);
                      if (e.currentTarget.checked) next.add(s.stream_id);
                      else next.delete(s.stream_id);
                      setChannels(next);
                    }}
                  />
                  #{s.name}
                </label>
              ))}
            </fieldset>
            <div class="row">
              <button type="submit" disabled={!emails.trim()}>
                Invite
              </button>
              <button
                type="button"
                class="make-link"
                onClick={() =>
                  void run(async () => {
                    const made = await api.once.post<MultiuseInviteResponse>("/invites/multiuse", params());
                    setLink(made.invite_link);
                    setResult({ text: "Link generated: anyone with it can join.", error: false });
                  })
                }
              >
                Generate invite link
              </button>
            </div>
          </form>
          {result && (
            <p class={`invite-result ${result.error ? "error" : ""}`} role="status">
              {result.text}
            </p>
          )}
          {link && (
            <div class="row">
              <input class="invite-link" readOnly value={link} aria-label="Invite link" onFocus={(e) => e.currentTarget.select()} />
              <button type="button" onClick={() => void navigator.clipboard?.writeText(link)}>
                Copy link
              </button>
            </div>
          )}
        </section>
      </div>
    </div>
  );
}
