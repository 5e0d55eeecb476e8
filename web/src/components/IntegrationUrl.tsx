import { useMemo, useState } from "preact/hooks";
import type { BotPayload } from "../../../src/contract/payloads.js";
import { myUserId } from "../api.js";
import { realm, subscriptions } from "../state.js";
import { openDialog } from "./ModalDialog.js";
import { DIRECT_MESSAGE, integrationUrl } from "../integrationUrl.js";
import "./integrationUrl.css";

/**
 * Zulip's "Generate URL for an integration" (Settings → Bots): a bot (an incoming webhook bot
 * of mine), an integration (/register's realm_incoming_webhook_bots, searchable), where to send
 * (a channel, or a direct message to me), an optional topic, event filters (only_events, from the
 * integration's all_event_types) and the integration's own options (url_options, or config_options
 * before Zulip's feature level 403) make the URL
 * `{realm_url}/api/v1/external/<name>?api_key=…&stream=<id>&topic=…&only_events=[…]`, in Zulip's
 * parameter order, with the bot's API key (realm_bots has it, as the bot cards show it).
 */
export interface WebhookIntegrationInfo {
  name: string;
  display_name: string;
  all_event_types: string[] | null;
  /** The URL's own options: url_options since Zulip's feature level 403, config_options from 318 to 402. */
  url_options?: UrlOption[];
  config_options?: UrlOption[];
}

interface UrlOption {
  key: string;
  label: string;
  validator: string;
}

function urlOptions(integration: WebhookIntegrationInfo | undefined): UrlOption[] {
  return (integration?.url_options ?? integration?.config_options ?? []).filter((o) => o.validator === "check_bool" || o.validator === "check_string");
}

const INCOMING_WEBHOOK = 2;

/** The incoming webhook bots I own, active, by name. */
export function myWebhookBots(): BotPayload[] {
  return ((realm.value.realm_bots ?? []) as BotPayload[])
    .filter((b) => b.is_active && b.owner_id === myUserId && b.bot_type === INCOMING_WEBHOOK)
    .sort((a, b) => a.full_name.localeCompare(b.full_name));
}

/** Zulip's max_topic_length. */
const MAX_TOPIC_LENGTH = 60;

function integrations(): WebhookIntegrationInfo[] {
  return [...((realm.value.realm_incoming_webhook_bots ?? []) as WebhookIntegrationInfo[])].sort((a, b) =>
    a.display_name.localeCompare(b.display_name, undefined, { sensitivity: "base" }),
  );
}

/** Whether the integration matches every word typed, in its display or URL name. */
function matches(integration: WebhookIntegrationInfo, search: string): boolean {
  const text = `${integration.display_name} ${integration.name}`.toLowerCase();
  return search
    .toLowerCase()
    .split(/\s+/)
    .every((word) => text.includes(word));
}

export function openIntegrationUrlDialog(botId?: number): void {
  openDialog("Generate URL for an integration", (close) => <IntegrationUrlForm botId={botId} close={close} />, "integration-url-dialog");
}

function IntegrationUrlForm({ botId, close }: { botId?: number; close: () => void }) {
  const bots = myWebhookBots();
  const all = integrations();
  const channels = useMemo(
    () => [...subscriptions.value.values()].filter((s) => !(s as { is_archived?: boolean }).is_archived).sort((a, b) => a.name.localeCompare(b.name)),
    [],
  );
  const [bot, setBot] = useState(botId !== undefined && bots.some((b) => b.user_id === botId) ? botId : (bots[0]?.user_id ?? 0));
  const [search, setSearch] = useState("");
  const [name, setName] = useState("");
  const [channel, setChannel] = useState(DIRECT_MESSAGE);
  const [useTopic, setUseTopic] = useState(false);
  const [topic, setTopic] = useState("");
  const [filterEvents, setFilterEvents] = useState(false);
  const [events, setEvents] = useState<string[]>([]);
  const [options, setOptions] = useState<Record<string, string | boolean>>({});
  const [copied, setCopied] = useState<string | null>(null);

  const integration = all.find((i) => i.name === name);
  const shown = all.filter((i) => matches(i, search) || i.name === name);
  const allEvents = integration?.all_event_types ? [...integration.all_event_types].sort((a, b) => a.localeCompare(b)) : null;
  const apiKey = bots.find((b) => b.user_id === bot)?.api_key;
  const realmUrl = typeof realm.value.realm_url === "string" ? realm.value.realm_url : location.origin;

  const url =
    integration && apiKey
      ? integrationUrl(realmUrl, {
          apiKey,
          integration: integration.name,
          channel,
          topic: useTopic && channel !== DIRECT_MESSAGE ? topic : null,
          events: filterEvents ? events : null,
          options,
        })
      : null;
  // As Zulip's: no copying a URL whose topic or event choice is unfinished.
  const incomplete = (useTopic && channel !== DIRECT_MESSAGE && topic.trim() === "") || (filterEvents && events.length === 0);

  const chooseIntegration = (next: string) => {
    // A new integration starts from a blank state, as in Zulip.
    setName(next);
    setFilterEvents(false);
    setEvents([]);
    setOptions({});
    setCopied(null);
  };

  if (bots.length === 0)
    return (
      <div class="integration-url-form">
        <p class="no-bots">You have no incoming webhook bots. Add one under “Add a new bot” with the type “Incoming webhook”, then generate its URL here.</p>
        <div class="modal-buttons">
          <button type="button" onClick={close}>
            Close
          </button>
        </div>
      </div>
    );

  return (
    <form class="integration-url-form" onSubmit={(e) => e.preventDefault()}>
      <label class="field">
        <span>Bot</span>
        <select name="bot" value={bot} onChange={(e) => setBot(Number(e.currentTarget.value))}>
          {bots.map((b) => (
            <option key={b.user_id} value={b.user_id}>
              {b.full_name} ({b.email})
            </option>
          ))}
        </select>
      </label>
      <div class="field">
        <label class="field-label">
          <span>Integration</span>
          <input
            class="integration-search"
            type="search"
            placeholder="Search integrations"
            aria-controls="integration-url-name"
            value={search}
            onInput={(e) => {
              const text = e.currentTarget.value;
              setSearch(text);
              // One match left: take it.
              const left = all.filter((i) => matches(i, text));
              if (left.length === 1 && left[0]!.name !== name) chooseIntegration(left[0]!.name);
            }}
          />
        </label>
        <select
          id="integration-url-name"
          name="integration"
          aria-label="Choose an integration"
          value={name}
          onChange={(e) => chooseIntegration(e.currentTarget.value)}
        >
          <option value="">{shown.length === 0 ? "No integrations match" : "Select an integration"}</option>
          {shown.map((i) => (
            <option key={i.name} value={i.name}>
              {i.display_name}
            </option>
          ))}
        </select>
      </div>
      <label class="field">
        <span>Where to send notifications</span>
        <select
          name="stream"
          value={channel}
          disabled={!integration}
          onChange={(e) => {
            const next = Number(e.currentTarget.value);
            setChannel(next);
            if (next === DIRECT_MESSAGE) {
              setUseTopic(false);
              setTopic("");
            }
          }}
        >
          <option value={DIRECT_MESSAGE}>Direct message to me</option>
          {channels.map((s) => (
            <option key={s.stream_id} value={s.stream_id}>
              #{s.name}
            </option>
          ))}
        </select>
      </label>
      <label class={`check ${channel === DIRECT_MESSAGE ? "disabled" : ""}`}>
        <input
          type="checkbox"
          name="override_topic"
          checked={useTopic}
          disabled={channel === DIRECT_MESSAGE || !integration}
          onChange={(e) => setUseTopic(e.currentTarget.checked)}
        />
        Send all notifications to a single topic
      </label>
      {useTopic && (
        <label class="field">
          <span>Topic</span>
          <input name="topic" value={topic} maxLength={MAX_TOPIC_LENGTH} onInput={(e) => setTopic(e.currentTarget.value)} />
        </label>
      )}
      {allEvents && (
        <>
          <label class="check">
            <input
              type="checkbox"
              name="filter_events"
              checked={filterEvents}
              onChange={(e) => {
                setFilterEvents(e.currentTarget.checked);
                setEvents([]);
              }}
            />
            Filter events that will trigger notifications?
          </label>
          {filterEvents && (
            <fieldset class="integration-events">
              <legend>Events to include</legend>
              <div class="row">
                <button type="button" class="check-all" onClick={() => setEvents([...allEvents])}>
                  Check all
                </button>
                <button type="button" class="uncheck-all" onClick={() => setEvents([])}>
                  Uncheck all
                </button>
              </div>
              <div class="event-list">
                {allEvents.map((event) => (
                  <label class="check" key={event}>
                    <input
                      type="checkbox"
                      class="integration-event"
                      value={event}
                      checked={events.includes(event)}
                      onChange={(e) => {
                        const on = e.currentTarget.checked;
                        // Kept in all_event_types' order, as Zulip's checkboxes are read.
                        setEvents((now) => allEvents.filter((x) => (x === event ? on : now.includes(x))));
                      }}
                    />
                    {event}
                  </label>
                ))}
              </div>
            </fieldset>
          )}
        </>
      )}
      {urlOptions(integration).map((option) =>
        option.validator === "check_bool" ? (
          <label class="check" key={option.key}>
            <input
              type="checkbox"
              class="integration-url-parameter"
              name={option.key}
              checked={options[option.key] === true}
              onChange={(e) => setOptions({ ...options, [option.key]: e.currentTarget.checked })}
            />
            {option.label}
          </label>
        ) : (
          <label class="field" key={option.key}>
            <span>{option.label}</span>
            <input
              class="integration-url-parameter"
              name={option.key}
              value={typeof options[option.key] === "string" ? (options[option.key] as string) : ""}
              onInput={(e) => setOptions({ ...options, [option.key]: e.currentTarget.value })}
            />
          </label>
        ),
      )}
      <div class="field">
        <span id="integration-url-label">URL</span>
        <code class={`integration-url ${url ? "" : "placeholder"}`} aria-labelledby="integration-url-label">
          {url ?? "Integration URL will appear here."}
        </code>
      </div>
      {integration && (
        <p class="doc-link">
          <a href={`/integrations/doc/${encodeURIComponent(integration.name)}`} target="_blank" rel="noopener">
            How to set up {integration.display_name}
          </a>
        </p>
      )}
      <div class="modal-buttons">
        <span class="copy-status" role="status">
          {copied}
        </span>
        <button
          type="button"
          class="primary copy-url"
          disabled={!url || incomplete}
          onClick={() => {
            if (!url) return;
            navigator.clipboard.writeText(url).then(
              () => setCopied("Copied!"),
              () => setCopied("Could not copy: select the URL and copy it."),
            );
          }}
        >
          Copy URL
        </button>
        <button type="button" onClick={close}>
          Close
        </button>
      </div>
    </form>
  );
}
