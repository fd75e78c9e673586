import { useEffect, useState } from "react";

export type Theme = "light" | "dark";

/** The stored choice (a preference, never a secret), else the system's. */
function initialTheme(): Theme {
  const stored = localStorage.getItem("lading.theme");
  if (stored === "light" || stored === "dark") return stored;
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

/** The colour theme, set on <html data-theme>. */
export function useTheme(): [Theme, () => void] {
  const [theme, setTheme] = useState<Theme>(initialTheme);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  return [
    theme,
    () => {
      const next = theme === "dark" ? "light" : "dark";
      localStorage.setItem("lading.theme", next);
      setTheme(next);
    },
  ];
}
