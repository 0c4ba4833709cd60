/** Test helpers: the gateway sandbox and its MSW handlers (filled in by the sandbox work). */
export {};
