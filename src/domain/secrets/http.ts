export const secretPath = (name: string) => `/api/secrets/${encodeURIComponent(name)}`;
