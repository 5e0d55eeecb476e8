import { signal } from "@preact/signals";
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
import { SHORTCUT_GROUPS, showShortcuts } from "../keyboard.js";
import { changesStalled, waitingChanges } from "../changeQueue.js";
import { connection, realmName, route, settings, users } from "../state.js";
import { myUserId } from "../api.js";

const sidebarOpen = signal(false);

/** What "#" (the home view) shows: the user's web_home_view. */
export function homeKind(): "inbox" | "recent" | "feed" {
  const home = settings.value.web_home_view;
  return home === "recent_topics" ? "recent" : home === "all_messages" ? "feed" : "inbox";
}

export function App() {
  const r = route.value;
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
    <div class={`layout ${sidebarOpen.value ? "sidebar-open" : ""}`}>
      <header class="top">
        <button type="button" class="menu" aria-label="Menu" onClick={() => (sidebarOpen.value = !sidebarOpen.value)}>
          ☰
        </button>
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
      </header>
      <Sidebar onNavigate={() => (sidebarOpen.value = false)} />
      <main class="main">
        <NotificationBanner />
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
        <Compose />
      </main>
      <UserList />
      <TopicDialog />
      {r.kind === "overlay" && isLazyOverlay(r.name) && <LazyOverlay name={r.name} section={r.path[0] ?? ""} path={r.path} />}
      <UserCard />
      <EmojiPicker />
      {notice.value && (
        <div class="notice" role="status">
          {notice.value}
        </div>
      )}
      {showShortcuts.value && (
        <div class="shortcuts" role="dialog" aria-label="Keyboard shortcuts">
          <h2>Keyboard shortcuts</h2>
          <div class="shortcut-groups" style={{ maxHeight: "70vh", overflowY: "auto" }}>
            {SHORTCUT_GROUPS.map((group) => (
              <table key={group.title}>
                <caption style={{ textAlign: "start", fontWeight: 600, padding: "10px 0 4px" }}>{group.title}</caption>
                <tbody>
                  {group.rows.map(({ keys, what }) => (
                    <tr key={what}>
                      <td>{what}</td>
                      <td style={{ width: "1%", textAlign: "end", whiteSpace: "nowrap", paddingInlineStart: "12px" }}>
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
      )}
    </div>
  );
}
