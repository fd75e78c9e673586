import { useEffect, useState } from "react";
import { Navigate, useNavigate, useSearchParams } from "react-router";
import { finishSignIn, safeNext, startSignIn } from "../auth/browser-sign-in.ts";
import { currentSession } from "../auth/session.ts";
import { Field } from "../components/field.tsx";
import { ErrorBox, Loading } from "../components/status.tsx";

/**
 * Sign-in: through an identity provider of the organisation (its uid comes in the link an
 * administrator shares, `/sign-in?identity_provider=<uid>`, or is typed here), or with a
 * development link `/#token=<API token>`.
 */
export function SignIn() {
  const [params] = useSearchParams();
  const [provider, setProvider] = useState(params.get("identity_provider") ?? "");
  const [error, setError] = useState<string>();
  const next = safeNext(params.get("next"));
  if (currentSession()) return <Navigate to={next} replace />;
  return (
    <section className="narrow" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in to Lading</h1>
      {params.get("reason") ? (
        <p className="error" role="alert">
          {params.get("reason")}
        </p>
      ) : null}
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          if (!/^[0-9a-f]{40}(\/[0-9a-f]{16})*$/.test(provider.trim())) {
            setError(
              "must be the uid of an identity provider: 40 hex characters, then /<16 hex> segments",
            );
            return;
          }
          await startSignIn(provider.trim(), next);
        }}
      >
        <Field
          label="Identity provider"
          value={provider}
          onChange={setProvider}
          error={error}
          hint="The uid your administrator gave you, as in lading auth login --identity-provider."
          required
        />
        <button type="submit" className="primary">
          Sign in
        </button>
      </form>
      <p className="muted">
        For development and tests, open a link of the form{" "}
        <span className="mono">/#token=&lt;API token&gt;</span>, for instance the one{" "}
        <span className="mono">lading admin bootstrap</span> prints. The token stays in this tab and
        is never sent in an address.
      </p>
    </section>
  );
}

/** The console's redirect URI: finishes a browser sign-in and goes where the user was going. */
export function SignedIn() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    // The one-time code is spent at once; the address bar drops it before anything else.
    const copy = new URLSearchParams(params);
    history.replaceState(null, "", "/signed-in");
    finishSignIn(copy).then((to) => navigate(to, { replace: true }), setError);
  }, [params, navigate]);
  return (
    <section className="narrow">
      <h1>Signing in</h1>
      {error ? (
        <>
          <ErrorBox error={error} />
          <p>
            <a href="/sign-in">Sign in again</a>
          </p>
        </>
      ) : (
        <Loading what="Finishing the sign-in" />
      )}
    </section>
  );
}
