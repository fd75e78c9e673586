import { Link, useLocation, useSearchParams } from "react-router";

/** The page number of the address bar (`?page=`, from 1). */
export function usePage(): number {
  const [params] = useSearchParams();
  const page = Number.parseInt(params.get("page") ?? "1", 10);
  return Number.isFinite(page) && page > 0 ? page : 1;
}

/** Previous/next links for a list of `total` items shown `size` a page, kept in the URL. */
export function Pager({ total, size, label }: { total: number; size: number; label: string }) {
  const page = usePage();
  const location = useLocation();
  const [params] = useSearchParams();
  const pages = Math.max(1, Math.ceil(total / size));
  const to = (n: number) => {
    const next = new URLSearchParams(params);
    if (n === 1) next.delete("page");
    else next.set("page", String(n));
    const q = next.toString();
    return `${location.pathname}${q ? `?${q}` : ""}`;
  };
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      {page > 1 ? (
        <Link to={to(page - 1)}>← Previous</Link>
      ) : (
        <span className="muted">← Previous</span>
      )}
      <span>
        Page {Math.min(page, pages)} of {pages} · {total.toLocaleString("en")} {label}
      </span>
      {page < pages ? <Link to={to(page + 1)}>Next →</Link> : <span className="muted">Next →</span>}
    </nav>
  );
}
