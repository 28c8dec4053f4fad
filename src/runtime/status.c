/*
 * status.c
 *	  Whether runtime filters are active in this session, and why not
 *	  (bloom_runtime_status), and the advice that CREATE EXTENSION gives
 *	  where the library is not loaded at every session's start
 *	  (bloom_runtime_check).  The door's side (runtime.h).
 *
 * Runtime filters live in the library's hooks, and PostgreSQL loads an
 * extension's library into a session only when the session first calls one
 * of its functions, unless a preload setting names it.  So after CREATE
 * EXTENSION a new session plans its hash joins without filters, and its
 * settings (bloomfilter.runtime_filter) do not exist for SHOW, until it
 * calls a bloomfilter function.  The module records how it was loaded
 * (bloom_rf_status_loaded, from _PG_init): by shared_preload_libraries (in
 * the postmaster), at the session's start (session_preload_libraries or
 * local_preload_libraries: before the session's first statement, while
 * debug_query_string is not set; 15 loads them inside InitPostgres's
 * transaction), or on first use (a statement's call, CREATE EXTENSION or
 * LOAD).  Calling bloom_runtime_status loads the library itself, so
 * "active" is always true after it unless the setting is off; what tells a
 * user why a query had no filter is "loaded" and "every_session".
 */
#include "runtime.h"
#include "settings.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/varlena.h"

PG_FUNCTION_INFO_V1(bloom_runtime_status);
PG_FUNCTION_INFO_V1(bloom_runtime_check);

/* How the library came into this process (bloom_rf_status_loaded); NULL: on first use. */
static const char *loaded_by = NULL;

/*
 * Whether the library list in setting name (a preload setting), as this
 * session started with it (its reset value: the server's, the database's
 * and the role's settings), names this library: "bloomfilter", with or
 * without a directory ($libdir/, $libdir/plugins/) or a ".so".
 */
static bool
named_in(const char *name)
{
	/* (the value a new session starts with: not a SET of this session's) */
	const char *value = GetConfigOptionResetString(name);
	char *copy;
	List *libraries = NIL;
	ListCell *lc;
	bool found = false;

	if (value == NULL || value[0] == '\0')
		return false;
	copy = pstrdup(value);
	/* (as load_libraries reads it; a list it cannot read names nothing) */
	if (!SplitDirectoriesString(copy, ',', &libraries))
		return false;
	foreach (lc, libraries)
	{
		const char *library = lfirst(lc);
		const char *base = strrchr(library, '/');
		size_t len;

		base = base != NULL ? base + 1 : library;
		len = strlen(base);
		if (len >= 3 && strcmp(base + len - 3, ".so") == 0)
			len -= 3;
		if (len == strlen("bloomfilter") && strncmp(base, "bloomfilter", len) == 0)
			found = true;
	}
	return found;
}

void
bloom_rf_status_loaded(void)
{
	if (process_shared_preload_libraries_in_progress)
		loaded_by = "shared_preload_libraries";
	else if (debug_query_string == NULL)
	{
		/* at a session's start: the preload settings, session's before local's */
		if (named_in("session_preload_libraries"))
			loaded_by = "session_preload_libraries";
		else if (named_in("local_preload_libraries"))
			loaded_by = "local_preload_libraries";
		else
			loaded_by = "the session's start";
	}
	else
		loaded_by = NULL;
}

/* Whether a new session of this database and role starts with the library loaded. */
static bool
every_session(void)
{
	return (loaded_by != NULL && strcmp(loaded_by, "shared_preload_libraries") == 0) ||
	       named_in("session_preload_libraries") || named_in("local_preload_libraries");
}

/* The hint for a session that loaded the library on first use. */
#define PRELOAD_HINT                                                                          \
	"Add bloomfilter to shared_preload_libraries (a restart), or, without a restart, ALTER "  \
	"DATABASE (or ROLE) ... SET session_preload_libraries = 'bloomfilter' (sessions started " \
	"after it)."

/*
 * bloom_runtime_status(): one row (active, loaded, every_session, reason):
 * whether a hash join planned now in this session may get a runtime
 * filter, how the library was loaded, whether new sessions of this
 * database and role load it at their start, and a sentence saying why.
 */
Datum
bloom_runtime_status(PG_FUNCTION_ARGS)
{
	TupleDesc desc;
	Datum values[4];
	bool nulls[4] = {false, false, false, false};
	bool every = every_session();
	const char *reason;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "bloom_runtime_status must return a composite type");
	if (!bloom_rf_enabled)
		reason = "bloomfilter.runtime_filter is off in this session";
	else if (every)
		reason = "the library is loaded at the start of every session of this database and role";
	else if (loaded_by == NULL)
		reason = "loaded on first use: a new session plans without runtime filters until it "
		         "calls a bloomfilter function; preload it: shared_preload_libraries, or "
		         "ALTER DATABASE ... SET session_preload_libraries = 'bloomfilter'";
	else
		reason = "loaded at this session's start, but a new session of this database and role "
		         "would not load it there; preload it: shared_preload_libraries, or ALTER "
		         "DATABASE ... SET session_preload_libraries = 'bloomfilter'";
	values[0] = BoolGetDatum(bloom_rf_enabled);
	values[1] = CStringGetTextDatum(loaded_by != NULL ? loaded_by : "on first use");
	values[2] = BoolGetDatum(every);
	values[3] = CStringGetTextDatum(reason);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}

/*
 * bloom_runtime_check(): a WARNING saying what to do where new sessions of
 * this database and role would not load the library at their start (so
 * would plan without runtime filters); nothing otherwise.  The update
 * script calls it, so that CREATE EXTENSION says it once: a WARNING, since
 * an extension's script runs with client_min_messages at WARNING or above,
 * and a NOTICE would never be seen.
 */
Datum
bloom_runtime_check(PG_FUNCTION_ARGS)
{
	if (!every_session())
		ereport(WARNING,
		        (errmsg("runtime filters in hash joins work only in sessions that have loaded "
		                "the bloomfilter library"),
		         errdetail("A session loads it at its first call of a bloomfilter function, and "
		                   "plans its hash joins without runtime filters until then; "
		                   "bloom_runtime_status() tells a session's state."),
		         errhint(PRELOAD_HINT)));
	PG_RETURN_VOID();
}
