//! The error every route answers with: [`ApiError`], a status and a message (and, for a
//! refused config, the per-key errors), sent as JSON `{"error": …, "errors": […]}`. Its own
//! module so that the modules the routes call (paths, jobs, preview, probe, guard) name it
//! without importing the routes back.

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use super::dials::KeyError;
use super::grids::GridError;

/// A failed request: its status, message and (for a rejected config) the per-key errors.
#[derive(Debug)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// What was wrong.
    pub message: String,
    /// Per-key errors of a rejected config.
    pub errors: Option<Vec<KeyError>>,
}

impl ApiError {
    /// An error with `status`.
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            errors: None,
        }
    }
    /// 400.
    pub fn bad_request(m: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, m)
    }
    /// 403.
    pub fn forbidden(m: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, m)
    }
    /// 404.
    pub fn not_found(m: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, m)
    }
    /// 409.
    pub fn conflict(m: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, m)
    }
    /// 422.
    pub fn unprocessable(m: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, m)
    }
    /// 500.
    pub fn internal(m: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, m)
    }
    /// 422 for a refused config, naming each key.
    pub fn refused(errors: Vec<KeyError>) -> ApiError {
        let keys: Vec<String> = errors
            .iter()
            .map(|e| match &e.key {
                Some(k) => format!("{k}: {}", e.message),
                None => e.message.clone(),
            })
            .collect();
        ApiError {
            errors: Some(errors),
            ..ApiError::unprocessable(format!("config refused: {}", keys.join("; ")))
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = json!({ "error": self.message });
        if let Some(errors) = self.errors {
            body["errors"] = json!(errors);
        }
        (self.status, Json(body)).into_response()
    }
}

/// A world's file that can no longer be read where its grids were: 422, naming the section and
/// byte.
impl From<GridError> for ApiError {
    fn from(e: GridError) -> ApiError {
        ApiError::unprocessable(e.to_string())
    }
}

impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> ApiError {
        ApiError::bad_request(r.body_text())
    }
}

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> ApiError {
        let status = r.status();
        let status = if status == StatusCode::PAYLOAD_TOO_LARGE {
            status
        } else if status.is_client_error() {
            StatusCode::BAD_REQUEST
        } else {
            status
        };
        ApiError::new(status, r.body_text())
    }
}

/// A handler's result.
pub type ApiResult<T> = Result<T, ApiError>;
