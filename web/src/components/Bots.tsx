import { useState } from "preact/hooks";
import type { BotPayload } from "../../../src/contract/payloads.js";
import { api, myUserId } from "../api.js";
import { realm, userName, users } from "../state.js";
import { attempt, Group, SelectField } from "./forms.js";
import { myWebhookBots, openIntegrationUrlDialog } from "./IntegrationUrl.js";
import "./admin.css";

/**
 * Bots: one's own (#settings/your-bots) and, for administrators, all of the organization's
 * (#organization/bot-list-admin). Create (generic, incoming or outgoing webhook), see and copy the
 * API key, download a zuliprc, generate a new key, rename, change owner or endpoint, deactivate
 * and reactivate. The list is /register's realm_bots, kept by realm_bot events.
 */
/** A bot as realm_bots lists it (the API contract's). */
type Bot = BotPayload;

/** An outgoing-webhook bot's service: its endpoint and interface (embedded bots' services have neither). */
function webhookService(bot: Bot): { base_url: string; interface: number } | undefined {
  return bot.services.find((s): s is { base_url: string; token: string; interface: number } => "base_url" in s);
}

const BOT_TYPES: Array<[number, string]> = [
  [1, "Generic"],
  [2, "Incoming webhook"],
  [3, "Outgoing webhook"],
];
const INCOMING = 2;
const OUTGOING = 3;
const INTERFACES: Array<[number, string]> = [
  [1, "Zulip"],
  [2, "Slack compatible"],
];

const botTypeName = (type: number | null) => BOT_TYPES.find(([v]) => v === type)?.[1] ?? (type === 4 ? "Embedded" : "Bot");

/** A zuliprc file for the bot, as Zulip's "Download zuliprc" gives it. */
function zuliprc(bot: Bot): string {
  return `[api]\nemail=${bot.email}\nkey=${bot.api_key}\nsite=${location.origin}\n`;
}

function downloadZuliprc(bot: Bot): void {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([zuliprc(bot)], { type: "application/octet-stream" }));
  link.download = "zuliprc";
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

function NewBot() {
  const [type, setType] = useState(1);
  const [name, setName] = useState("");
  const [shortName, setShortName] = useState("");
  const [url, setUrl] = useState("");
  const [iface, setIface] = useState(1);
  return (
    <form
      class="new-bot"
      onSubmit={(e) => {
        e.preventDefault();
        void (async () => {
          const params: Record<string, string | number> = { bot_type: type, full_name: name, short_name: shortName };
          if (type === OUTGOING) Object.assign(params, { payload_url: url, interface_type: iface });
          if (await attempt(() => api.once.post("/bots", params), "Bot created")) {
            setName("");
            setShortName("");
            setUrl("");
          }
        })();
      }}
    >
      <SelectField name="bot_type" label="Bot type" value={type} options={BOT_TYPES} onSave={(v) => setType(Number(v))} />
      <label class="field">
        <span>Name</span>
        <input name="full_name" value={name} maxLength={100} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label class="field">
        <span>Bot email (before -bot@)</span>
        <input name="short_name" value={shortName} onInput={(e) => setShortName(e.currentTarget.value)} />
      </label>
      {type === OUTGOING && <ServiceFields names={["payload_url", "interface_type"]} url={url} setUrl={setUrl} iface={iface} setIface={setIface} />}
      <button type="submit" disabled={!name.trim() || !shortName.trim() || (type === OUTGOING && !url.trim())}>
        Create bot
      </button>
    </form>
  );
}

/** An outgoing webhook bot's endpoint and message format (the create form's and the editor's parameter names). */
function ServiceFields(props: {
  names: [url: string, iface: string];
  url: string;
  setUrl: (url: string) => void;
  iface: number;
  setIface: (iface: number) => void;
}) {
  return (
    <>
      <label class="field">
        <span>Endpoint URL</span>
        <input name={props.names[0]} type="url" value={props.url} placeholder="https://example.com/hook" onInput={(e) => props.setUrl(e.currentTarget.value)} />
      </label>
      <SelectField
        name={props.names[1]}
        label="Outgoing webhook message format"
        value={props.iface}
        options={INTERFACES}
        onSave={(v) => props.setIface(Number(v))}
      />
    </>
  );
}

function BotEditor({ bot, admin, onDone }: { bot: Bot; admin: boolean; onDone: () => void }) {
  const [name, setName] = useState(bot.full_name);
  const [owner, setOwner] = useState(bot.owner_id ?? myUserId);
  const service = webhookService(bot);
  const [url, setUrl] = useState(service?.base_url ?? "");
  const [iface, setIface] = useState(service?.interface ?? 1);
  const people = [...users.value.values()].filter((u) => !u.is_bot && u.is_active !== false).sort((a, b) => a.full_name.localeCompare(b.full_name));
  return (
    <form
      class="bot-editor"
      onSubmit={(e) => {
        e.preventDefault();
        void (async () => {
          const params: Record<string, string | number> = { full_name: name };
          if (owner !== bot.owner_id) params.bot_owner_id = owner;
          if (bot.bot_type === OUTGOING) Object.assign(params, { service_payload_url: url, service_interface: iface });
          if (await attempt(() => api.patch(`/bots/${bot.user_id}`, params))) onDone();
        })();
      }}
    >
      <label class="field">
        <span>Name</span>
        <input name="full_name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      {admin && (
        <SelectField
          name="bot_owner_id"
          label="Owner"
          value={owner}
          options={people.map((u) => [u.user_id, u.full_name] as [number, string])}
          onSave={(v) => setOwner(Number(v))}
        />
      )}
      {bot.bot_type === OUTGOING && (
        <ServiceFields names={["service_payload_url", "service_interface"]} url={url} setUrl={setUrl} iface={iface} setIface={setIface} />
      )}
      <div class="row">
        <button type="submit" disabled={!name.trim()}>
          Save changes
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function BotCard({ bot, admin }: { bot: Bot; admin: boolean }) {
  const [showKey, setShowKey] = useState(false);
  const [editing, setEditing] = useState(false);
  return (
    <li class={`bot-card ${bot.is_active ? "" : "inactive"}`} data-bot-id={bot.user_id}>
      <div class="bot-head">
        <span class="avatar" aria-hidden="true">
          {bot.full_name.slice(0, 1)}
        </span>
        <div>
          <div class="name">{bot.full_name}</div>
          <div class="hint email">{bot.email}</div>
          <div class="hint">
            {botTypeName(bot.bot_type)}
            {admin && bot.owner_id !== null && <> · owner {userName(bot.owner_id)}</>}
            {!bot.is_active && <> · deactivated</>}
          </div>
          {bot.bot_type === OUTGOING && webhookService(bot)?.base_url && <div class="hint endpoint">Endpoint: {webhookService(bot)?.base_url}</div>}
        </div>
      </div>
      {editing ? (
        <BotEditor bot={bot} admin={admin} onDone={() => setEditing(false)} />
      ) : bot.is_active ? (
        <>
          {showKey && (
            <div class="row key-row">
              <code class="api-key">{bot.api_key}</code>
              <button type="button" onClick={() => void attempt(() => navigator.clipboard.writeText(bot.api_key), "Copied")}>
                Copy
              </button>
            </div>
          )}
          <div class="row bot-actions">
            <button type="button" class="show-key" onClick={() => setShowKey(!showKey)}>
              {showKey ? "Hide API key" : "Show API key"}
            </button>
            <button type="button" class="zuliprc" onClick={() => downloadZuliprc(bot)}>
              Download zuliprc
            </button>
            <button
              type="button"
              class="regenerate"
              onClick={() => void attempt(() => api.once.post(`/bots/${bot.user_id}/api_key/regenerate`), "New API key generated")}
            >
              Generate new API key
            </button>
            {bot.bot_type === INCOMING && bot.owner_id === myUserId && (
              <button type="button" class="generate-url" title="Generate URL for an integration" onClick={() => openIntegrationUrlDialog(bot.user_id)}>
                Generate URL
              </button>
            )}
            <button type="button" class="edit" onClick={() => setEditing(true)}>
              Edit
            </button>
            <button
              type="button"
              class="deactivate"
              onClick={() => confirm(`Deactivate ${bot.full_name}?`) && void attempt(() => api.del(`/bots/${bot.user_id}`), "Deactivated")}
            >
              Deactivate
            </button>
          </div>
        </>
      ) : (
        <div class="row bot-actions">
          <button type="button" class="reactivate" onClick={() => void attempt(() => api.post(`/users/${bot.user_id}/reactivate`), "Reactivated")}>
            Reactivate
          </button>
        </div>
      )}
    </li>
  );
}

/** `admin`: every bot of the organization with its owner; otherwise the bots I own. */
export function Bots({ admin = false }: { admin?: boolean }) {
  const all = (realm.value.realm_bots ?? []) as Bot[];
  const list = all
    .filter((b) => admin || b.owner_id === myUserId)
    .sort((a, b) => Number(b.is_active) - Number(a.is_active) || a.full_name.localeCompare(b.full_name));
  return (
    <>
      {!admin && (
        <Group title="Add a new bot">
          <NewBot />
        </Group>
      )}
      <Group title={admin ? "All bots" : "Your bots"}>
        {!admin && (
          <div class="row integration-url-row">
            <button type="button" class="open-integration-url" onClick={() => openIntegrationUrlDialog()}>
              Generate URL for an integration
            </button>
            {myWebhookBots().length === 0 && <span class="hint">for an incoming webhook bot: add one first</span>}
          </div>
        )}
        {list.length === 0 && <p class="hint">{admin ? "The organization has no bots." : "You have no bots."}</p>}
        <ul class="bots">
          {list.map((b) => (
            <BotCard key={b.user_id} bot={b} admin={admin} />
          ))}
        </ul>
      </Group>
    </>
  );
}
