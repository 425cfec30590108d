// Sign-in: the admin types the token once; the server answers with the cookie.
import { PageShell } from "../../views/layout.tsx";
import { attr } from "../../views/parts.tsx";

export function SignInPage(props: { error?: string | null; next?: string }): string {
  return PageShell({
    title: "Sign in",
    signedIn: false,
    children: (
      <form class="sign-in" method="post" action="/ui/sign-in">
        <h1>Sign in</h1>
        <label for="token">Token</label>
        <input id="token" name="token" type="password" autocomplete="current-password" required autofocus />
        <input type="hidden" name="next" value={attr(props.next ?? "/ui/")} />
        {props.error ? (
          <p class="error" role="alert" safe>
            {props.error}
          </p>
        ) : (
          ""
        )}
        <button type="submit" class="primary">
          Sign in
        </button>
      </form>
    ),
  });
}
