/* slinky-jail: its log sink (log_sink.c). */
#ifndef SLINKY_JAIL_LOG_SINK_H
#define SLINKY_JAIL_LOG_SINK_H
/** Send the library's log to stderr (debug too with SLINKY_JAIL_VERBOSE=1). */
void jail_log_sink_install(void);
#endif
