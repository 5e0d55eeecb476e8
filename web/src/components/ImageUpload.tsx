import { useRef, useState } from "preact/hooks";
import { answerError, api, type Envelope, myUserId } from "../api.js";
import { realm, realmName, users } from "../state.js";
import { Avatar, uploadedAvatarUrl } from "./Avatar.js";
import "./imageUpload.css";

/**
 * Image uploads of the settings overlays: the avatar in #settings/profile (POST and DELETE
 * /users/me/avatar) and the organization icon in #organization/organization-profile (POST and
 * DELETE /realm/icon). The new image appears from the server's event (realm_user / realm
 * update), as it does for everyone else.
 */
async function postImage(path: string, file: File): Promise<void> {
  const form = new FormData();
  form.append("file", file, file.name);
  const token = document.querySelector<HTMLMetaElement>('meta[name="parley-csrf-token"]')?.content ?? "";
  const res = await fetch(`/json${path}`, { method: "POST", body: form, credentials: "same-origin", headers: { "X-CSRFToken": token } });
  const data = (await res.json().catch(() => null)) as Envelope | null;
  if (!res.ok || data?.result !== "success") throw answerError(data, res.status);
}

/** Maximum sizes of /register (server constants), in MiB. */
const MAX_MIB = 5;

interface ImageControlProps {
  label: string;
  path: string;
  uploaded: boolean;
  disabledReason: string | null;
  preview: preact.ComponentChildren;
}

function ImageControl({ label, path, uploaded, disabledReason, preview }: ImageControlProps) {
  const input = useRef<HTMLInputElement>(null);
  const [status, setStatus] = useState<{ text: string; error: boolean } | null>(null);
  const run = async (action: () => Promise<unknown>, done: string) => {
    setStatus({ text: "Saving…", error: false });
    try {
      await action();
      setStatus({ text: done, error: false });
    } catch (error) {
      setStatus({ text: (error as Error).message, error: true });
    }
  };
  const choose = (file: File | undefined) => {
    if (!file) return;
    if (file.size > MAX_MIB * 1024 * 1024) return setStatus({ text: `The image is larger than the limit of ${MAX_MIB} MiB.`, error: true });
    void run(() => postImage(path, file), "Uploaded");
  };
  return (
    <div class="image-upload">
      {preview}
      <div class="image-upload-actions">
        {disabledReason ? (
          <p class="hint">{disabledReason}</p>
        ) : (
          <>
            <button type="button" onClick={() => input.current?.click()}>
              Upload {label}
            </button>
            {uploaded && (
              <button type="button" class="secondary" onClick={() => void run(() => api.del(path), "Deleted")}>
                Delete {label}
              </button>
            )}
            <input
              ref={input}
              type="file"
              accept="image/*"
              hidden
              aria-label={`New ${label}`}
              onChange={(e) => {
                choose(e.currentTarget.files?.[0]);
                e.currentTarget.value = "";
              }}
            />
          </>
        )}
        {status && (
          <span class={`image-upload-status ${status.error ? "error" : ""}`} role={status.error ? "alert" : "status"}>
            {status.text}
          </span>
        )}
      </div>
    </div>
  );
}

/** #settings/profile: the user's own avatar. */
export function AvatarUpload() {
  const me = users.value.get(myUserId);
  const isAdmin = (me?.role ?? 400) <= 200;
  const disabled = realm.value.realm_avatar_changes_disabled && !isAdmin ? "Avatar changes are disabled in this organization." : null;
  return (
    <ImageControl
      label="avatar"
      path="/users/me/avatar"
      uploaded={uploadedAvatarUrl(myUserId) !== null}
      disabledReason={disabled}
      preview={<Avatar userId={myUserId} name={me?.full_name ?? "?"} big />}
    />
  );
}

/** #organization/organization-profile: the organization's icon (administrators). */
export function RealmIconUpload() {
  const url = realm.value.realm_icon_url as string | undefined;
  const uploaded = realm.value.realm_icon_source === "U" && typeof url === "string";
  return (
    <ImageControl
      label="icon"
      path="/realm/icon"
      uploaded={uploaded}
      disabledReason={null}
      preview={
        <span class={`avatar big realm-icon ${uploaded ? "has-image" : ""}`} aria-hidden="true">
          {uploaded ? <img src={url} alt="" /> : (realmName.value || "?").slice(0, 1)}
        </span>
      }
    />
  );
}
