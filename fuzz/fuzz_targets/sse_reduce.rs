//! Provider streams are untrusted: any bytes, cut into any chunks, fed to the Responses and
//! Chat Completions reducers must end in an admitted response or a typed error — never a panic,
//! and never an admitted response after an error.

#![no_main]

use ansa::provider::chat::ChatReducer;
use ansa::provider::responses::ResponsesReducer;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&split, body)) = data.split_first() else {
        return;
    };
    let size = usize::from(split % 64) + 1;
    let mut responses = ResponsesReducer::new("gpt-5.5");
    let mut chat = ChatReducer::new("gpt-5.5");
    let mut responses_failed = false;
    let mut chat_failed = false;
    let mut previews = 0usize;
    for chunk in body.chunks(size) {
        responses_failed |= responses.push(chunk, &mut |_| previews += 1).is_err();
        chat_failed |= chat.push(chunk, &mut |_| previews += 1).is_err();
    }
    let admitted = responses.finish();
    assert!(!(responses_failed && admitted.is_ok()));
    let admitted = chat.finish();
    assert!(!(chat_failed && admitted.is_ok()));
});
