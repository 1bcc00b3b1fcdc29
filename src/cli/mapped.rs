//! Inputs that another program truncates while graph500 reads them.
//!
//! Edge lists are mapped, not copied (a binary width-4 list is used in
//! place for the whole run), so a file cut short by another program while
//! it is mapped makes the next read of a lost page fault: SIGBUS, which
//! would kill the process with no word (status 135). graph500 turns that
//! fault into a one-line error and exit status 2: "F: changed while it was
//! read ...", F being the inputs the command named ([`watch`]). Nothing
//! is written: the temporary file of a write in progress is removed, the
//! file it was to replace left as it was.
//!
//! Only the fault of a mapped file cut short (`BUS_ADRERR`) is turned into
//! the message; any other SIGBUS keeps its default action.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering::SeqCst};

/// The message's bytes, leaked so that the handler may read them at any
/// moment; null until [`watch`].
static MESSAGE: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static MESSAGE_LEN: AtomicUsize = AtomicUsize::new(0);

/// Set by the first thread that faults: the threads of a parallel read
/// fault together on a cut file, and each would say the message once.
static FAULTED: AtomicBool = AtomicBool::new(false);

/// Said when no input was named.
const UNNAMED: &[u8] =
    b"graph500: error: an input file changed while it was read (cut short by another program)\n";

/// The exit status after the fault.
const EXIT_STATUS: i32 = 2;

/// Names the files the command reads (links as given): the ones the
/// message names if one is cut short while mapped.
pub(crate) fn watch<P: AsRef<Path>>(inputs: &[P]) {
    if inputs.is_empty() {
        return;
    }
    let names: Vec<String> = inputs
        .iter()
        .map(|p| p.as_ref().display().to_string())
        .collect();
    let message = format!(
        "graph500: error: {}: changed while it was read (cut short by another program); stopped, nothing written\n",
        names.join(" or ")
    );
    let bytes: &'static mut [u8] = Box::leak(message.into_bytes().into_boxed_slice());
    // Length first, pointer second: the handler reads the pointer, then a
    // length at least as recent.
    MESSAGE_LEN.store(bytes.len(), SeqCst);
    MESSAGE.store(bytes.as_mut_ptr(), SeqCst);
}

/// Installs the handler of SIGBUS.
pub(crate) fn install() -> std::io::Result<()> {
    #[allow(unsafe_code)]
    // SAFETY: `sigaction` is given a zeroed, then filled, `sigaction`
    // struct that lives for the call, and a handler with the three-argument
    // signature SA_SIGINFO asks for; the old action is not read.
    let status = unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
        action.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&raw mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &raw const action, std::ptr::null_mut())
    };
    if status == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// The SIGBUS handler: only async-signal-safe calls (`unlink`, `write`,
/// `_exit`, `signal`, `pause`) and atomics. The first faulting thread
/// speaks and ends the process; any other waits in `pause` for that end.
extern "C" fn on_sigbus(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    #[allow(unsafe_code)]
    // SAFETY: the kernel passes a valid `siginfo_t` to an SA_SIGINFO
    // handler. The message is either the constant or bytes leaked by
    // `watch` (never freed), `MESSAGE_LEN` long. `write` and `_exit` are
    // async-signal-safe; restoring the default action and returning makes
    // the faulting access fault again, now fatally, as without a handler.
    // `pause` is async-signal-safe; `_exit` ends every thread, the waiting
    // ones too.
    unsafe {
        if (*info).si_code != libc::BUS_ADRERR {
            libc::signal(libc::SIGBUS, libc::SIG_DFL);
            return;
        }
        if FAULTED.swap(true, SeqCst) {
            loop {
                libc::pause();
            }
        }
        let named = MESSAGE.load(SeqCst);
        let (text, len) = if named.is_null() {
            (UNNAMED.as_ptr(), UNNAMED.len())
        } else {
            (named.cast_const(), MESSAGE_LEN.load(SeqCst))
        };
        crate::cli::interrupt::remove_temporaries_in_handler();
        libc::write(libc::STDERR_FILENO, text.cast(), len);
        libc::_exit(EXIT_STATUS);
    }
}
