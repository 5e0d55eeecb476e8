import "./Shortcuts.css";
import { signal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import { useModal } from "./modal.js";
import { announcement } from "../announce.js";
import { Compose } from "./Compose.js";
import { MessageList } from "./MessageList.js";
import { Sidebar } from "./Sidebar.js";
import { UserList } from "./UserList.js";
import { Recent } from "./Recent.js";
import { Inbox } from "./Inbox.js";
import { SearchBox } from "./SearchBox.js";
import { TopicDialog } from "./TopicDialog.js";
import { EmojiPicker } from "./EmojiPicker.js";
import { isLazyOverlay, LazyOverlay } from "./LazyOverlay.js";
import { UserCard } from "./UserCard.js";
import { NotificationBanner } from "./NotificationBanner.js";
import { title } from "../viewTitle.js";
import { notice } from "../actions.js";
import { SHORTCUT_GROUPS, showShortcuts } from "../keyboard/shortcuts.js";
import { homeKind } from "../home.js";
import { changesStalled, waitingChanges } from "../changeQueue.js";
import { connection, realmName, route, users } from "../state.js";
import { myUserId } from "../api.js";
import { isVisitor } from "../visitor.js";
import { VisitorBanner, VisitorButtons } from "./Visitor.js";

const sidebarOpen = signal(false);
/** The people list below 1100 px, where it is not a column of its own: opened from the header. */
const peopleOpen = signal(false);

export function App() {
  const r = route.value;
  // Going somewhere closes the people list over the view.
  useEffect(() => void (peopleOpen.value = false), [r]);
  // Esc closes it too (a disclosure, not a dialog: the rest of the page stays usable).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape" || !peopleOpen.value || document.querySelector("[aria-modal='true']")) return;
      peopleOpen.value = false;
      document.querySelector<HTMLElement>(".top .people-toggle")?.focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
  const kind = r.kind === "home" ? homeKind() : r.kind;
  const heading =
    r.kind === "narrow"
      ? title(r.terms)
      : kind === "inbox"
        ? "Inbox"
        : kind === "recent"
          ? "Recent conversations"
          : r.kind === "invalid"
            ? "Invalid URL"
            : "Combined feed";
  return (
    <div class={`layout ${sidebarOpen.value ? "sidebar-open" : ""} ${peopleOpen.value ? "people-open" : ""} ${isVisitor ? "visitor" : ""}`}>
      <header class="top">
        <button type="button" class="menu" aria-label="Menu" aria-expanded={sidebarOpen.value} onClick={() => (sidebarOpen.value = !sidebarOpen.value)}>
          ☰
        </button>
        {/* eslint-disable-next-line jsx-a11y-x/anchor-is-valid -- "#" is a real address: the empty hash is the home view (hash.ts) */}
        <a class="realm" href="#">
          {realmName.value || "Parley"}
        </a>
        <SearchBox />
        {(connection.value === "reconnecting" || changesStalled.value) && (
          <span class="connection">
            Reconnecting…
            {changesStalled.value && ` ${waitingChanges.value} ${waitingChanges.value === 1 ? "change" : "changes"} not saved yet`}
          </span>
        )}
        {isVisitor ? (
          <VisitorButtons />
        ) : (
          <>
            <button
              type="button"
              class="people-toggle"
              aria-label="People"
              title="People"
              aria-expanded={peopleOpen.value}
              aria-controls="user-list"
              onClick={() => ((peopleOpen.value = !peopleOpen.value), (sidebarOpen.value = false))}
            >
              <svg viewBox="0 0 20 20" width="20" height="20" aria-hidden="true">
                <circle cx="7" cy="6.5" r="3" fill="currentColor" />
                <path d="M1.5 16.5c0-3.2 2.5-5.5 5.5-5.5s5.5 2.3 5.5 5.5z" fill="currentColor" />
                <circle cx="14" cy="7" r="2.5" fill="currentColor" opacity="0.75" />
                <path d="M13.5 11.2c2.8 0 5 2 5 5.3h-4.6c0-2-.6-3.7-1.8-5z" fill="currentColor" opacity="0.75" />
              </svg>
            </button>
            <a class="settings-link" href="#invite" aria-label="Invite users" title="Invite users to organization">
              +
            </a>
            {(users.value.get(myUserId)?.role ?? 400) <= 200 && (
              <a class="settings-link" href="#organization/organization-profile" aria-label="Organization settings" title="Organization settings">
                ⚑
              </a>
            )}
            <a class="settings-link" href="#settings/profile" aria-label="Personal settings" title="Personal settings">
              ⚙
            </a>
            <form method="post" action="/accounts/logout/" class="logout">
              <button type="submit">Log out</button>
            </form>
          </>
        )}
      </header>
      <Sidebar onNavigate={() => (sidebarOpen.value = false)} />
      <main class="main">
        {isVisitor ? <VisitorBanner /> : <NotificationBanner />}
        <h1 class="view-title">{heading}</h1>
        {kind === "inbox" ? (
          <Inbox />
        ) : kind === "recent" ? (
          <Recent />
        ) : r.kind === "invalid" ? (
          <p class="status error">This link is not valid.</p>
        ) : (
          <MessageList />
        )}
        {!isVisitor && <Compose />}
      </main>
      {!isVisitor && <UserList />}
      <TopicDialog />
      {r.kind === "overlay" && isLazyOverlay(r.name) && <LazyOverlay name={r.name} section={r.path[0] ?? ""} path={r.path} />}
      <UserCard />
      <EmojiPicker />
      {notice.value && (
        <div class="notice" role="status">
          {notice.value}
        </div>
      )}
      {showShortcuts.value && <ShortcutsDialog />}
      <div class="sr-only" aria-live="polite" aria-atomic="true" data-announcer="">
        {announcement.value}
      </div>
    </div>
  );
}

/** The list of keyboard shortcuts (`?`), a modal dialog. */
function ShortcutsDialog() {
  const dialog = useRef<HTMLDivElement>(null);
  const close = () => (showShortcuts.value = false);
  useModal(dialog, close);
  return (
    <div class="shortcuts" role="dialog" aria-labelledby="shortcuts-title" ref={dialog}>
      <div class="shortcuts-head">
        <h2 id="shortcuts-title">Keyboard shortcuts</h2>
        <button type="button" class="close" aria-label="Close" title="Close (Esc)" onClick={close}>
          ×
        </button>
      </div>
      <div class="shortcut-groups">
        {SHORTCUT_GROUPS.map((group) => (
          <table key={group.title}>
            <caption>{group.title}</caption>
            <tbody>
              {group.rows.map(({ keys, what }) => (
                <tr key={what}>
                  <td>{what}</td>
                  <td class="keys">
                    {keys.map((combo, i) => (
                      <span key={combo.join("+")}>
                        {i > 0 && " or "}
                        {combo.map((key, j) => (
                          <span key={key}>
                            {j > 0 && " + "}
                            <kbd>{key}</kbd>
                          </span>
                        ))}
                      </span>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      </div>
    </div>
  );
}
