import "./Visitor.css";
import { effect } from "@preact/signals";
import { realmName } from "../state.js";
import { loginHref, needsAccount, signInPrompt } from "../visitor.js";
import { openDialog } from "./ModalDialog.js";

/**
 * What a visitor (visitor.ts) sees of accounts: the banner above the view (the organization is
 * read as a guest), the header's Log in and Sign up buttons, and the sign-in prompt (Zulip's
 * login_to_access dialog) that what needs an account opens.
 */
export function VisitorBanner() {
  const name = realmName.value || "this organization";
  return (
    <div class="visitor-banner" role="region" aria-label="Guest access">
      <span>
        You are viewing <b>{name}</b> as a guest. Log in or sign up to join the conversation.
      </span>
    </div>
  );
}

/** The header's buttons for a visitor, in place of settings and Log out. */
export function VisitorButtons() {
  return (
    <div class="visitor-buttons">
      <a class="visitor-login" href={loginHref()}>
        Log in
      </a>
      <button type="button" class="visitor-signup" onClick={() => needsAccount("signup")}>
        Sign up
      </button>
    </div>
  );
}

/** The sign-in prompt, opened (once at a time) whenever signInPrompt is set. */
let promptOpen = false;
effect(() => {
  const prompt = signInPrompt.value;
  if (!prompt || promptOpen) return;
  promptOpen = true;
  const name = realmName.peek() || "this organization";
  openDialog(
    prompt.reason === "signup" ? `Sign up for ${name}` : `Join ${name}`,
    (close) => (
      <>
        {prompt.reason === "signup" ? (
          <p>Accounts in {name} are by invitation: ask a member or an administrator for an invitation link, then sign up with it.</p>
        ) : (
          <p>You are reading {name} as a guest. Log in, or sign up with an invitation, to send messages, react, follow topics and more.</p>
        )}
        <div class="modal-buttons">
          <a class="button primary" href={loginHref()}>
            Log in
          </a>
          <button type="button" onClick={close}>
            Not now
          </button>
        </div>
      </>
    ),
    "sign-in-prompt",
    () => {
      promptOpen = false;
      signInPrompt.value = null;
    },
  );
});
