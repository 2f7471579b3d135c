export declare function packageDir(from: string): string;
