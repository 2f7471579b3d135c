export declare const addonPaths: Readonly<{ unixFd: string; isalEc: string; bulk: string }>;
export declare function loadAddon(path: string): unknown;
