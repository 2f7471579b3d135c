export declare function readWorkerScript(): { script: string; eval: boolean; execArgv: string[] | undefined };
