import ReactMarkdown, { defaultUrlTransform } from "react-markdown";

/** Links and images only to http(s), mailto and the console's own paths. */
function safeUrl(url: string): string {
  const cleaned = defaultUrlTransform(url);
  return /^(https?:|mailto:|\/|#)/i.test(cleaned) || !/^[a-z][a-z0-9+.-]*:/i.test(cleaned)
    ? cleaned
    : "";
}

/**
 * Markdown from the API (readmes, advisory text) as React elements: raw HTML in the text is
 * dropped (`skipHtml`), never parsed, and link targets other than http(s), mailto and relative
 * ones are removed, so hostile text cannot run script or inject markup.
 */
export function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown
        skipHtml
        urlTransform={safeUrl}
        components={{
          a: ({ href, children }) => (
            <a href={href} rel="noopener noreferrer nofollow" target="_blank">
              {children}
            </a>
          ),
          img: ({ alt }) => <span className="muted">[image: {alt}]</span>,
        }}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}
