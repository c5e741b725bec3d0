//! A panic inside the engine, made visible: by default a panic in WebAssembly ends in an
//! `unreachable` trap that says nothing of where or why. The hook hands the panic's message and
//! place to the page's JavaScript (a function `othelloPanic` on the global object, which the
//! worker and the page define) before the trap, so that the page can show it.

use js_sys::{Function, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// Installs the hook; the page calls it once after loading the module (more calls are harmless).
#[wasm_bindgen(js_name = installPanicReport)]
pub fn install_panic_report() {
    std::panic::set_hook(Box::new(|info| {
        let message = format!("the engine panicked (a bug): {info}");
        let reporter = Reflect::get(&js_sys::global(), &JsValue::from_str("othelloPanic"));
        if let Some(reporter) = reporter.ok().and_then(|r| r.dyn_into::<Function>().ok()) {
            let _ = reporter.call1(&JsValue::NULL, &JsValue::from_str(&message));
        }
    }));
}
