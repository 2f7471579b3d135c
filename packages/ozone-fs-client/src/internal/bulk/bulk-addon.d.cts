export declare const addonPath: string;
export declare function loadAddon(path?: string): unknown;
