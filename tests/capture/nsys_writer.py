"""Writes Nsight Systems SQLite exports as `nsys export --type sqlite` lays them out (../shared/reference/
trace-facts.md): StringIds; CUPTI_ACTIVITY_KIND_KERNEL (start, end ns, deviceId, streamId, correlationId,
globalPid, demangledName/shortName -> StringIds, graphNodeId, graphId); CUPTI_ACTIVITY_KIND_RUNTIME (globalTid,
correlationId, nameId); NVTX_EVENTS (start, end, eventType 59 push/pop, text/textId, domainId, globalTid, jsonText);
META_DATA_CAPTURE. Correlation ids are per process; a process's id sits in bits 24..47 of globalPid/globalTid.
"""
import sqlite3

SCHEMA = """
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE META_DATA_CAPTURE (name TEXT NOT NULL, value TEXT);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER, gridX INTEGER NOT NULL,
  blockX INTEGER NOT NULL, graphNodeId INTEGER, graphId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
  domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
  int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT);
"""


def global_pid(pid):
    return (1 << 56) | (pid << 24)


def global_tid(pid, tid):
    return global_pid(pid) | tid


class Export:
    def __init__(self, path, graph_trace_mode="Node", epoch_ns=1779782330000000000):
        self.db = sqlite3.connect(path)
        self.db.executescript(SCHEMA)
        self.strings = {}
        self.db.execute("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.25.0')")
        self.db.execute("INSERT INTO META_DATA_CAPTURE VALUES ('CUDA_GRAPH_TRACE_OPTIONS:MODE', ?)", (graph_trace_mode,))
        self.db.execute("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (?, '', '')", (epoch_ns,))

    def string(self, value):
        if value not in self.strings:
            self.strings[value] = len(self.strings) + 1
            self.db.execute("INSERT INTO StringIds VALUES (?, ?)", (self.strings[value], value))
        return self.strings[value]

    def kernel(self, pid, device, start, end, name, corr, stream=7, graph=False):
        short = name.split("(")[0].split("<")[0].replace("void ", "")
        self.db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,?,1,?,?,?,?,?,NULL,132,256,?,?)",
                        (start, end, device, stream, corr, global_pid(pid), self.string(name), self.string(short),
                         1 if graph else None, 1 if graph else None))

    def runtime(self, pid, tid, start, end, name, corr):
        self.db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,1,?,?,?,0,NULL)",
                        (start, end, global_tid(pid, tid), corr, self.string(name)))

    def nvtx(self, pid, tid, start, end, text, domain=0, json_text=None, registered=False):
        """A push/pop range (eventType 59); `registered` puts its text in StringIds (textId) instead of text."""
        self.db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId, domainId, jsonText) "
                        "VALUES (?,?,59,?,?,?,?,?)",
                        (start, end, None if registered else text, global_tid(pid, tid),
                         self.string(text) if registered else None, domain, json_text))

    def close(self):
        self.db.commit()
        self.db.close()
